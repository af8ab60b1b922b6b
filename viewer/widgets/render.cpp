#include "widgets/render.h"

#include <QCoreApplication>
#include <QLayout>
#include <QPixmap>

#include "widgets/compare_view.h"
#include "widgets/series_view.h"
#include "widgets/summary_view.h"
#include "widgets/sweep_view.h"
#include "widgets/timeline_view.h"

namespace drainsim::viewer {

std::optional<ViewKind> view_kind(const QString& name) {
  for (ViewKind v : {ViewKind::kTimeline, ViewKind::kSeries, ViewKind::kSummary, ViewKind::kSweep,
                     ViewKind::kCompare}) {
    if (view_name(v) == name) return v;
  }
  return std::nullopt;
}

QString view_name(ViewKind v) {
  switch (v) {
    case ViewKind::kTimeline:
      return QStringLiteral("timeline");
    case ViewKind::kSeries:
      return QStringLiteral("series");
    case ViewKind::kSummary:
      return QStringLiteral("summary");
    case ViewKind::kSweep:
      return QStringLiteral("sweep");
    case ViewKind::kCompare:
      return QStringLiteral("compare");
  }
  return {};
}

void Loaded::add(Document doc) {
  if (doc.run) runs.push_back(std::make_shared<const Results>(std::move(*doc.run)));
  if (doc.sweep) sweeps.push_back(std::make_shared<const Sweep>(std::move(*doc.sweep)));
  if (doc.comparison) {
    comparisons.push_back(std::make_shared<const Comparison>(std::move(*doc.comparison)));
  }
}

std::string render_problem(ViewKind view, const Loaded& loaded) {
  switch (view) {
    case ViewKind::kTimeline:
    case ViewKind::kSeries: {
      std::string why;
      for (const auto& r : loaded.runs) {
        if (r->timeline_missing.empty()) return {};
        why += (why.empty() ? "" : "; ") + r->path + ": " + r->timeline_missing;
      }
      return why.empty() ? "no results file given (drainsim run ... --timeline --out FILE)" : why;
    }
    case ViewKind::kSummary:
      return loaded.runs.empty() ? "no results file given" : "";
    case ViewKind::kSweep:
      return loaded.sweeps.empty() ? "no sweep file given (drainsim sweep ... --out FILE)" : "";
    case ViewKind::kCompare:
      return loaded.comparisons.empty()
                 ? "no comparison file given (drainsim compare ... --format json --out FILE)"
                 : "";
  }
  return {};
}

std::unique_ptr<QWidget> make_view(ViewKind view, const Loaded& loaded, QSize size,
                                   const QString& metric, const ViewOptions& options) {
  std::unique_ptr<QWidget> w;
  switch (view) {
    case ViewKind::kTimeline: {
      auto v = std::make_unique<TimelineView>();
      if (options.rows) v->set_row_mode(options.rows);
      v->set_runs(loaded.runs);
      if (options.window) v->set_range(options.window->t0, options.window->t1);
      w = std::move(v);
      break;
    }
    case ViewKind::kSeries: {
      auto v = std::make_unique<SeriesView>();
      v->set_picture(true);
      v->set_runs(loaded.runs);
      if (options.window) v->zoom_time(options.window->t0, options.window->t1);
      w = std::move(v);
      break;
    }
    case ViewKind::kSummary: {
      auto v = std::make_unique<SummaryView>();
      v->set_runs(loaded.runs);
      w = std::move(v);
      break;
    }
    case ViewKind::kSweep: {
      auto v = std::make_unique<SweepView>();
      v->set_picture(true);
      v->set_sweeps(loaded.sweeps);
      if (!metric.isEmpty()) v->set_metric(metric);
      w = std::move(v);
      break;
    }
    case ViewKind::kCompare: {
      auto v = std::make_unique<CompareView>();
      v->set_picture(true);
      v->set_comparisons(loaded.comparisons);
      if (!metric.isEmpty()) v->set_metric(metric);
      w = std::move(v);
      break;
    }
  }
  w->setAttribute(Qt::WA_DontShowOnScreen);
  w->resize(size);
  w->show();  // not on screen: lays out children and delivers the resize
  if (w->layout()) w->layout()->activate();
  QCoreApplication::processEvents();
  return w;
}

QImage render(QWidget& view) { return view.grab().toImage().convertToFormat(QImage::Format_RGB32); }

}  // namespace drainsim::viewer
