#include "widgets/timeline_legend.h"

#include <QPainter>

#include "widgets/palette.h"

namespace drainsim::viewer {

std::vector<std::pair<PodState, QRect>> paint_timeline_legend(QPainter& p,
                                                              const TimelineLayout& L) {
  std::vector<std::pair<PodState, QRect>> states;
  p.fillRect(QRect(0, L.rows_bottom(), L.width(), L.height() - L.rows_bottom()),
             background_color());
  // Outcomes and marks on the first line, pod states on the second.
  int x = L.plot_left();
  int y = L.rows_bottom() + 4;
  for (int o = 0; o < kOutcomeCount; ++o) {
    const auto outcome = static_cast<Outcome>(o);
    p.fillRect(QRect(x, y, 10, 10), outcome_color(outcome));
    p.setPen(Qt::black);
    const QString name = QString::fromLatin1(to_string(outcome));
    p.drawText(QPoint(x + 13, y + 9), name);
    x += 20 + p.fontMetrics().horizontalAdvance(name);
  }
  p.setPen(QPen(grace_deadline_color(), 1, Qt::DashLine));
  p.drawLine(x, y, x, y + 10);
  p.setPen(Qt::black);
  p.drawText(QPoint(x + 5, y + 9), QStringLiteral("grace deadline"));
  x += 100;
  p.fillRect(QRect(x, y, 14, 10), QBrush(prestop_color(), Qt::BDiagPattern));
  p.drawText(QPoint(x + 17, y + 9), QStringLiteral("preStop"));
  x += 70;
  p.fillRect(QRect(x, y, 14, 10), deploy_window_color());
  p.drawText(QPoint(x + 17, y + 9), QStringLiteral("deploy"));
  x += 60;
  p.fillRect(QRect(x, y, 14, 10), chaos_window_color());
  p.drawText(QPoint(x + 17, y + 9), QStringLiteral("chaos"));

  x = L.plot_left();
  y += 16;
  p.drawText(QPoint(x, y + 9), QStringLiteral("pod states:"));
  x += 10 + p.fontMetrics().horizontalAdvance(QStringLiteral("pod states:"));
  for (int s = 0; s < kPodStateCount; ++s) {
    const auto state = static_cast<PodState>(s);
    const QRect swatch(x, y, 14, 10);
    p.fillRect(swatch, state_color(state));
    states.emplace_back(state, swatch);
    const QString name = QString::fromLatin1(state_label(state));
    p.drawText(QPoint(x + 17, y + 9), name);
    x += 24 + p.fontMetrics().horizontalAdvance(name);
  }
  return states;
}

}  // namespace drainsim::viewer
