#include "widgets/tick_axis.h"

namespace drainsim::viewer {

TickAxis::TickAxis(TickKind kind, double min_px, QObject* parent)
    : QCategoryAxis(parent), kind_(kind), min_px_(min_px) {
  setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  connect(this, &QValueAxis::rangeChanged, this, [this] { relabel(); });
  relabel();
}

void TickAxis::set_length(double px) {
  if (px <= 0 || px == length_px_) return;
  length_px_ = px;
  if (fitted_) refit();
  relabel();
}

void TickAxis::fit(double lo, double hi) {
  fitted_ = true;
  fit_lo_ = lo;
  fit_hi_ = hi;
  refit();
}

void TickAxis::refit() {
  const double lo = fit_lo_ < 0 ? -round_axis_max(kind_, -fit_lo_, length_px_, min_px_) : 0;
  const double hi = round_axis_max(kind_, fit_hi_, length_px_, min_px_);
  if (min() != lo || max() != hi) setRange(lo, hi);  // relabels
}

QStringList TickAxis::labels() const {
  QStringList out;
  for (const Tick& t : ticks_) out << QString::fromStdString(t.label);
  return out;
}

void TickAxis::relabel() {
  ticks_ = axis_ticks(kind_, min(), max(), length_px_, min_px_);
  for (const QString& l : categoriesLabels()) remove(l);
  // Each category ends at a tick, where its label is drawn; the first starts at the
  // axis's minimum (its grid line is the plot's edge).
  setStartValue(min());
  for (const Tick& t : ticks_) append(QString::fromStdString(t.label), t.value);
}

}  // namespace drainsim::viewer
