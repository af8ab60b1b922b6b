// The viewer's window: a tab per view (timeline, series, summary, sweep, compare) over the
// files it has open; View > Replica rows (also on the toolbar) switches the timeline between
// a row per replica and a row per pod, and the timeline scrolls when its rows do not fit. Files
// come from the command line, File > Open (several at once) or drag and drop; each is watched and
// read again when it changes on disk (a failed re-read keeps what was shown and says why in the
// status bar). GUI thread only.
#pragma once

#include <QMainWindow>
#include <QStringList>

#include "widgets/render.h"

QT_BEGIN_NAMESPACE
class QAction;
class QFileSystemWatcher;
class QTabWidget;
class QToolBar;
QT_END_NAMESPACE

namespace drainsim::viewer {

class TimelineView;
class SeriesView;
class SummaryView;
class SweepView;
class CompareView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  // Opens (or re-reads) each file; a file that cannot be read is reported and skipped.
  // Returns the messages of the files that failed.
  QStringList open_files(const QStringList& paths, bool interactive = true);
  void show_view(ViewKind view);
  // The timeline's rows and the timeline's and series' time range (the command line's).
  void set_view_options(const ViewOptions& options);
  // A picture of the window (--screenshot): the current view alone, as --render draws it,
  // with no menu, toolbar, tabs, status bar, choosers or hints, and every timeline row in
  // sight rather than scrolling. Default: off.
  void set_picture(bool on);
  TimelineView* timeline() const { return timeline_; }
  const QStringList& paths() const { return paths_; }
  const Loaded& loaded() const { return loaded_; }  // what the views show

 protected:
  void dragEnterEvent(QDragEnterEvent*) override;
  void dropEvent(QDropEvent*) override;

 private:
  void reload(const QString& path);
  void refresh();

  QStringList paths_;
  std::vector<Loaded> docs_;  // what each file holds, parallel to paths_
  Loaded loaded_;
  QTabWidget* tabs_;
  TimelineView* timeline_;
  SeriesView* series_;
  SummaryView* summary_;
  SweepView* sweep_;
  CompareView* compare_;
  QFileSystemWatcher* watcher_;
  QAction* replica_rows_;
  QToolBar* toolbar_;
};

}  // namespace drainsim::viewer
