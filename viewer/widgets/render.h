// Views by name and headless rendering (`drainsim-viewer --render`): builds the chosen view
// of the loaded files at a given size, off screen, and grabs it as an image (raster, no
// OpenGL). GUI thread only, with a QApplication (QT_QPA_PLATFORM=offscreen for headless).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QImage>
#include <QSize>
#include <QString>
#include <QWidget>

#include "reader/results_reader.h"
#include "widgets/replica_rows.h"
#include "widgets/time_window.h"

namespace drainsim::viewer {

enum class ViewKind { kTimeline, kSeries, kSummary, kSweep, kCompare };
std::optional<ViewKind> view_kind(const QString& name);  // "timeline", "series", ...
QString view_name(ViewKind v);

// The loaded files, by kind.
struct Loaded {
  std::vector<std::shared_ptr<const Results>> runs;
  std::vector<std::shared_ptr<const Sweep>> sweeps;
  std::vector<std::shared_ptr<const Comparison>> comparisons;
  void add(Document doc);
};

// Why `view` has nothing to draw for `loaded` (e.g. no run with a timeline); empty if it
// has.
std::string render_problem(ViewKind view, const Loaded& loaded);

// What the timeline and series views show of a run (--rows, --from/--to/--around).
struct ViewOptions {
  std::optional<RowMode> rows;       // timeline; nullopt: by the fleet's size
  std::optional<TimeWindow> window;  // timeline and series; nullopt: the whole run
};

// The view's widget showing `loaded` as a picture (no choosers or hints, every row drawn),
// laid out at `size` and not shown. `metric` picks the sweep metric or compare metric group
// (empty: the default).
std::unique_ptr<QWidget> make_view(ViewKind view, const Loaded& loaded, QSize size,
                                   const QString& metric = {}, const ViewOptions& options = {});

// The widget as it looks: its grab at its size.
QImage render(QWidget& view);

}  // namespace drainsim::viewer
