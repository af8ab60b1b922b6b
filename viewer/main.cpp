// drainsim-viewer: looks at drainsim results (timelines), sweeps and comparisons.
//   drainsim-viewer FILE...                                   a window
//   drainsim-viewer --render OUT.png --view timeline|series|summary|sweep|compare
//                   [--size 1600x900] [--metric NAME] [--rows replica|pod]
//                   [--from 2m] [--to 6m | --around deploy|chaos|T] FILE...  a picture, headless
// Exit codes: 0 ok, 2 bad input (a file that cannot be read, an unknown view, a view with
// nothing to show, a bad --rows or time window, no display for a window), 1 the picture
// could not be written.
// --help and --version need no display: the command line is read before any GUI exists.
// Qt's own debug and warning chatter (a missing XDG_RUNTIME_DIR, the offscreen platform's
// "does not support propagateSizeHints()") is not printed, so a picture's stderr is empty
// unless something went wrong; QT_LOGGING_RULES or DRAINSIM_VIEWER_QT_LOG=1 bring it back.
//   --screenshot OUT.png: the window, shown, as a picture of --size (hidden from --help; for
//   scripts/screenshots.sh under Xvfb).
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>
#include <QTimer>

#include <fmt/format.h>

#include "base/duration.h"

#include "widgets/main_window.h"
#include "widgets/render.h"
#include "widgets/timeline_view.h"

using namespace drainsim::viewer;

namespace {

constexpr int kBadInput = 2;

int fail(const QString& message) {
  std::fprintf(stderr, "error: %s\n", qPrintable(message));
  return kBadInput;
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0';
}

// Qt's messages: critical and fatal ones printed as Qt would, the rest dropped.
void quiet_qt(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtCriticalMsg || type == QtFatalMsg) {
    std::fprintf(stderr, "drainsim-viewer: %s\n", qPrintable(message));
  }
}

// True when Qt can open a window: a display (X11 or Wayland), a platform chosen by
// QT_QPA_PLATFORM or by Qt's own -platform argument.
bool has_display(int argc, char** argv) {
  if (env_set("DISPLAY") || env_set("WAYLAND_DISPLAY") || env_set("QT_QPA_PLATFORM")) return true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-platform" || a == "--platform") return true;
  }
  return false;
}

// What a timeline picture shows, for the line that reports it: ", 100 replica rows, 0s to
// 1h0m54s" (the rows of every run, the time range); empty for the other views.
std::string shown(ViewKind view, QWidget& widget) {
  if (view != ViewKind::kTimeline) return {};
  const TimelineLayout& layout = static_cast<TimelineView&>(widget).layout();
  std::size_t rows = 0;
  for (int r = 0; r < static_cast<int>(layout.runs().size()); ++r) rows += layout.rows(r).size();
  return fmt::format(", {} {}, {} to {}", rows,
                     layout.row_mode() == RowMode::kReplica ? "replica rows" : "pod lanes",
                     drainsim::format_seconds(layout.t0()), drainsim::format_seconds(layout.t1()));
}

}  // namespace

int main(int argc, char** argv) {
  if (!env_set("QT_LOGGING_RULES") && !env_set("DRAINSIM_VIEWER_QT_LOG")) {
    qInstallMessageHandler(quiet_qt);
  }
  QCoreApplication::setApplicationName(QStringLiteral("drainsim-viewer"));
  QCoreApplication::setApplicationVersion(QStringLiteral(DRAINSIM_VERSION));

  QCommandLineParser cli;
  cli.setApplicationDescription(
      QStringLiteral("Plots drainsim results (drainsim run --timeline), sweeps and comparisons."));
  cli.addHelpOption();
  cli.addVersionOption();
  const QCommandLineOption render_opt(QStringLiteral("render"),
                                      QStringLiteral("Write the view to this PNG, headless."),
                                      QStringLiteral("OUT.png"));
  const QCommandLineOption view_opt(
      QStringLiteral("view"),
      QStringLiteral("timeline (default), series, summary, sweep or compare."),
      QStringLiteral("VIEW"), QStringLiteral("timeline"));
  const QCommandLineOption size_opt(QStringLiteral("size"),
                                    QStringLiteral("WIDTHxHEIGHT of the picture (1600x900)."),
                                    QStringLiteral("WxH"), QStringLiteral("1600x900"));
  const QCommandLineOption metric_opt(
      QStringLiteral("metric"),
      QStringLiteral("sweep: the metric (default job_loss); compare: all (default), counts, "
                     "seconds or a metric."),
      QStringLiteral("NAME"));
  QCommandLineOption shot_opt(
      QStringLiteral("screenshot"),
      QStringLiteral("Show the window as a picture of --size, write it to this PNG, quit."),
      QStringLiteral("OUT.png"));
  shot_opt.setFlags(QCommandLineOption::HiddenFromHelp);
  const QCommandLineOption rows_opt(
      QStringLiteral("rows"),
      QStringLiteral("timeline: a row per replica (a replacement pod continues its "
                     "predecessor's row) or per pod; default: replica above %1 pods.")
          .arg(kReplicaRowsAbovePods),
      QStringLiteral("replica|pod"));
  const QCommandLineOption from_opt(
      QStringLiteral("from"),
      QStringLiteral("timeline, series: show from this time (a duration: 2m, 1m30s)."),
      QStringLiteral("TIME"));
  const QCommandLineOption to_opt(
      QStringLiteral("to"),
      QStringLiteral("timeline, series: show until this time (default: the run's end)."),
      QStringLiteral("TIME"));
  const QCommandLineOption around_opt(
      QStringLiteral("around"),
      QStringLiteral("timeline, series: frame the first rollout (deploy) or chaos event (chaos) "
                     "with a margin of a quarter of its length, at least 15s, or TIME +- 30s."),
      QStringLiteral("deploy|chaos|TIME"));
  cli.addOptions({render_opt, view_opt, size_opt, metric_opt, rows_opt, from_opt, to_opt,
                  around_opt, shot_opt});
  cli.addPositionalArgument(QStringLiteral("files"),
                            QStringLiteral("Results, sweep or compare JSON files."),
                            QStringLiteral("FILE..."));

  // A first reading, before any application object: Qt's own arguments (-platform, -style)
  // are still in argv, so an error here is final only when no window can open anyway.
  QStringList raw;
  for (int i = 0; i < argc; ++i) raw << QString::fromLocal8Bit(argv[i]);
  const bool parsed = cli.parse(raw);
  if (cli.isSet(QStringLiteral("help")) || cli.isSet(QStringLiteral("help-all")) ||
      cli.isSet(QStringLiteral("version"))) {
    QCoreApplication core(argc, argv);  // no GUI: works without a display
    if (cli.isSet(QStringLiteral("version"))) cli.showVersion();
    if (parsed && cli.isSet(QStringLiteral("help-all"))) cli.process(core);  // Qt's options too
    cli.showHelp(0);
  }
  const bool rendering = cli.isSet(render_opt);
  if (!rendering && !has_display(argc, argv)) {
    if (!parsed) return fail(cli.errorText());
    std::fprintf(stderr, "drainsim-viewer: no display: use --render OUT.png\n");
    return kBadInput;
  }
  // Rendering needs no display: use the offscreen platform unless told otherwise.
  if (rendering && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QApplication app(argc, argv);
  if (!cli.parse(QApplication::arguments())) return fail(cli.errorText());

  const std::optional<ViewKind> view = view_kind(cli.value(view_opt));
  if (!view) {
    return fail(
        QStringLiteral("--view: expected timeline, series, summary, sweep or compare, got \"%1\"")
            .arg(cli.value(view_opt)));
  }
  const QRegularExpressionMatch size =
      QRegularExpression(QStringLiteral("^([1-9][0-9]{1,4})x([1-9][0-9]{1,4})$"))
          .match(cli.value(size_opt));
  if (!size.hasMatch()) {
    return fail(QStringLiteral("--size: expected WIDTHxHEIGHT like 1600x900, got \"%1\"")
                    .arg(cli.value(size_opt)));
  }
  const QSize wanted(size.captured(1).toInt(), size.captured(2).toInt());
  ViewOptions options;
  if (cli.isSet(rows_opt)) {
    const QString rows = cli.value(rows_opt);
    if (rows != QStringLiteral("replica") && rows != QStringLiteral("pod")) {
      return fail(QStringLiteral("--rows: expected replica or pod, got \"%1\"").arg(rows));
    }
    options.rows = rows == QStringLiteral("replica") ? RowMode::kReplica : RowMode::kPod;
  }
  const WindowRequest window_request{cli.value(from_opt).toStdString(),
                                     cli.value(to_opt).toStdString(),
                                     cli.value(around_opt).toStdString()};
  const bool timed_view = *view == ViewKind::kTimeline || *view == ViewKind::kSeries;
  if (!window_request.empty() && !timed_view) {
    return fail(QStringLiteral("--from, --to and --around are for --view timeline or series"));
  }
  if (options.rows && *view != ViewKind::kTimeline) {
    return fail(QStringLiteral("--rows is for --view timeline"));
  }

  if (cli.isSet(render_opt)) {
    if (cli.positionalArguments().isEmpty())
      return fail(QStringLiteral("--render needs at least one FILE"));
    Loaded loaded;
    for (const QString& f : cli.positionalArguments()) {
      Document doc = load_document(f.toStdString());
      if (!doc.ok()) return fail(QString::fromStdString(doc.error));
      loaded.add(std::move(doc));
    }
    if (const std::string why = render_problem(*view, loaded); !why.empty()) {
      return fail(QStringLiteral("--view %1: nothing to show: %2")
                      .arg(view_name(*view), QString::fromStdString(why)));
    }
    const WindowChoice window = choose_window(window_request, loaded.runs);
    if (!window.error.empty()) return fail(QString::fromStdString(window.error));
    options.window = window.window;
    auto widget = make_view(*view, loaded, wanted, cli.value(metric_opt), options);
    const QImage image = render(*widget);
    const QString out = cli.value(render_opt);
    if (!image.save(out, "PNG")) {
      std::fprintf(stderr, "error: %s: cannot write the picture\n", qPrintable(out));
      return 1;
    }
    std::printf("wrote %s (%dx%d, %s view%s)\n", qPrintable(out), image.width(), image.height(),
                qPrintable(view_name(*view)), shown(*view, *widget).c_str());
    return 0;
  }

  MainWindow window;
  const bool shooting = cli.isSet(shot_opt);
  if (shooting) window.set_picture(true);
  window.resize(wanted);
  const QStringList errors = window.open_files(cli.positionalArguments(), false);
  for (const QString& e : errors) std::fprintf(stderr, "error: %s\n", qPrintable(e));
  if (cli.isSet(view_opt)) window.show_view(*view);
  const WindowChoice range = choose_window(window_request, window.loaded().runs);
  if (!range.error.empty()) return fail(QString::fromStdString(range.error));
  options.window = range.window;
  window.set_view_options(options);
  window.show();
  if (shooting) {
    QTimer::singleShot(1500, &window, [&] {
      // The window itself at --size, whatever the screen's size (a window manager or a
      // smaller screen may have moved or clipped it on screen).
      window.resize(wanted);
      const QImage shot = window.grab().toImage().convertToFormat(QImage::Format_RGB32);
      const bool ok = shot.save(cli.value(shot_opt), "PNG");
      std::printf("%s %s (%dx%d)\n", ok ? "wrote" : "could not write",
                  qPrintable(cli.value(shot_opt)), shot.width(), shot.height());
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return QApplication::exec();
}
