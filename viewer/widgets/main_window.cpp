#include "widgets/main_window.h"

#include <QAction>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

#include "widgets/compare_view.h"
#include "widgets/series_view.h"
#include "widgets/summary_view.h"
#include "widgets/sweep_view.h"
#include "widgets/timeline_view.h"

namespace drainsim::viewer {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      tabs_(new QTabWidget(this)),
      timeline_(new TimelineView()),
      series_(new SeriesView()),
      summary_(new SummaryView()),
      sweep_(new SweepView()),
      compare_(new CompareView()),
      watcher_(new QFileSystemWatcher(this)),
      replica_rows_(new QAction(QStringLiteral("&Replica rows"), this)) {
  setWindowTitle(QStringLiteral("drainsim viewer"));
  setAcceptDrops(true);
  tabs_->addTab(timeline_, QStringLiteral("Timeline"));
  tabs_->addTab(series_, QStringLiteral("Series"));
  tabs_->addTab(summary_, QStringLiteral("Summary"));
  tabs_->addTab(sweep_, QStringLiteral("Sweep"));
  tabs_->addTab(compare_, QStringLiteral("Compare"));
  setCentralWidget(tabs_);

  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  QAction* open = file->addAction(QStringLiteral("&Open..."));
  open->setShortcut(QKeySequence::Open);
  connect(open, &QAction::triggered, this, [this] {
    const QStringList files = QFileDialog::getOpenFileNames(
        this, QStringLiteral("Open drainsim results, sweep or compare files"), QString(),
        QStringLiteral("JSON (*.json);;All files (*)"));
    if (!files.isEmpty()) open_files(files);
  });
  QAction* reload_all = file->addAction(QStringLiteral("&Reload"));
  reload_all->setShortcut(QKeySequence::Refresh);
  connect(reload_all, &QAction::triggered, this, [this] { open_files(paths_); });
  QAction* close_all = file->addAction(QStringLiteral("&Close all"));
  connect(close_all, &QAction::triggered, this, [this] {
    if (!paths_.isEmpty()) watcher_->removePaths(paths_);
    paths_.clear();
    docs_.clear();
    refresh();
  });
  file->addSeparator();
  QAction* quit = file->addAction(QStringLiteral("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QWidget::close);

  // The timeline's rows: per replica (replacement pods continue a row) or per pod.
  timeline_->set_scrollable(true);
  replica_rows_->setCheckable(true);
  replica_rows_->setShortcut(QKeySequence(QStringLiteral("Ctrl+R")));
  replica_rows_->setToolTip(
      QStringLiteral("Timeline: a row per replica, a replacement pod continuing its "
                     "predecessor's row (off: a row per pod)"));
  connect(replica_rows_, &QAction::triggered, this,
          [this](bool on) { timeline_->set_row_mode(on ? RowMode::kReplica : RowMode::kPod); });
  menuBar()->addMenu(QStringLiteral("&View"))->addAction(replica_rows_);
  toolbar_ = addToolBar(QStringLiteral("Timeline"));
  toolbar_->setObjectName(QStringLiteral("timeline_toolbar"));
  toolbar_->addAction(replica_rows_);

  // Writers truncate then write: wait a moment before reading a changed file again.
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, [this](const QString& path) {
    QTimer::singleShot(300, this, [this, path] { reload(path); });
  });
  statusBar()->showMessage(
      QStringLiteral("Open results (drainsim run --timeline), sweep or compare JSON files: "
                     "File > Open or drop them here."));
  refresh();
}

QStringList MainWindow::open_files(const QStringList& paths, bool interactive) {
  QStringList errors;
  for (const QString& path : paths) {
    Document doc = load_document(path.toStdString());
    if (!doc.ok()) {
      errors << QString::fromStdString(doc.error);
      continue;
    }
    const QString abs = QFileInfo(path).absoluteFilePath();
    const qsizetype at = paths_.indexOf(abs);
    Loaded one;
    one.add(std::move(doc));
    if (at >= 0) {
      docs_[static_cast<std::size_t>(at)] = std::move(one);
    } else {
      paths_ << abs;
      docs_.push_back(std::move(one));
      watcher_->addPath(abs);
    }
  }
  refresh();
  statusBar()->showMessage(
      QStringLiteral("%1 file(s) open; each is read again when it changes").arg(paths_.size()));
  if (!errors.isEmpty()) {
    statusBar()->showMessage(errors.join(QStringLiteral("; ")));
    if (interactive) {
      QMessageBox::warning(this, QStringLiteral("Cannot open"),
                           errors.join(QStringLiteral("\n\n")));
    }
  }
  return errors;
}

void MainWindow::reload(const QString& path) {
  Document doc = load_document(path.toStdString());
  // Some writers replace the file: watch the new one.
  if (!watcher_->files().contains(path) && QFileInfo::exists(path)) watcher_->addPath(path);
  const qsizetype at = paths_.indexOf(path);
  if (at < 0) return;
  if (!doc.ok()) {
    statusBar()->showMessage(
        QStringLiteral("not reloaded: %1").arg(QString::fromStdString(doc.error)));
    return;
  }
  Loaded one;
  one.add(std::move(doc));
  docs_[static_cast<std::size_t>(at)] = std::move(one);
  refresh();
  statusBar()->showMessage(QStringLiteral("reloaded %1").arg(path));
}

void MainWindow::refresh() {
  Loaded loaded;
  for (const Loaded& d : docs_) {
    loaded.runs.insert(loaded.runs.end(), d.runs.begin(), d.runs.end());
    loaded.sweeps.insert(loaded.sweeps.end(), d.sweeps.begin(), d.sweeps.end());
    loaded.comparisons.insert(loaded.comparisons.end(), d.comparisons.begin(), d.comparisons.end());
  }
  loaded_ = loaded;
  timeline_->set_runs(loaded.runs);
  replica_rows_->setChecked(timeline_->row_mode() == RowMode::kReplica);
  series_->set_runs(loaded.runs);
  summary_->set_runs(loaded.runs);
  sweep_->set_sweeps(loaded.sweeps);
  compare_->set_comparisons(loaded.comparisons);
  setWindowTitle(
      paths_.isEmpty()
          ? QStringLiteral("drainsim viewer")
          : QStringLiteral("drainsim viewer — %1").arg(paths_.join(QStringLiteral(", "))));
  if (!loaded.runs.empty()) {
    if (tabs_->currentIndex() >= 3) tabs_->setCurrentIndex(0);
  } else if (!loaded.sweeps.empty()) {
    tabs_->setCurrentWidget(sweep_);
  } else if (!loaded.comparisons.empty()) {
    tabs_->setCurrentWidget(compare_);
  }
}

void MainWindow::show_view(ViewKind view) { tabs_->setCurrentIndex(static_cast<int>(view)); }

void MainWindow::set_view_options(const ViewOptions& options) {
  if (options.rows) timeline_->set_row_mode(options.rows);
  replica_rows_->setChecked(timeline_->row_mode() == RowMode::kReplica);
  if (options.window) {
    timeline_->set_range(options.window->t0, options.window->t1);
    series_->zoom_time(options.window->t0, options.window->t1);
  }
}

void MainWindow::set_picture(bool on) {
  menuBar()->setVisible(!on);
  toolbar_->setVisible(!on);
  statusBar()->setVisible(!on);
  tabs_->tabBar()->setVisible(!on);
  tabs_->setDocumentMode(on);  // no frame around the view
  timeline_->set_scrollable(!on);
  series_->set_picture(on);
  sweep_->set_picture(on);
  compare_->set_picture(on);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
  QStringList files;
  for (const QUrl& url : e->mimeData()->urls()) {
    if (url.isLocalFile()) files << url.toLocalFile();
  }
  if (!files.isEmpty()) open_files(files);
  e->acceptProposedAction();
}

}  // namespace drainsim::viewer
