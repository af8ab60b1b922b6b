#include "widgets/palette.h"

namespace drainsim::viewer {

QColor outcome_color(Outcome o) {
  switch (o) {
    case Outcome::kCompleted:
      return QColor(0x2e, 0x9e, 0x44);  // green
    case Outcome::kFailed:
      return QColor(0x8c, 0x56, 0x4b);  // brown
    case Outcome::kInterrupted:
      return QColor(0x21, 0x66, 0xac);  // blue: not the orange of a draining pod
    case Outcome::kKilled:
      return QColor(0x1a, 0x1a, 0x1a);  // black, as KILL: not the crimson of a crashed pod
    case Outcome::kAbandoned:
      return QColor(0x94, 0x67, 0xbd);  // purple
    case Outcome::kCancelled:
      return QColor(0x7f, 0x7f, 0x7f);  // grey
    case Outcome::kDuplicate:
      return QColor(0x17, 0xbe, 0xcf);  // cyan
  }
  return Qt::black;
}

QColor state_color(PodState s) {
  switch (s) {
    case PodState::kStarting:
      return QColor(0xfe, 0xe0, 0x8b);  // light yellow
    case PodState::kReady:
      return QColor(0xa1, 0xd9, 0x9b);  // light green
    case PodState::kQuiet:
      return QColor(0x80, 0xcd, 0xc1);  // teal
    case PodState::kDraining:
      return QColor(0xfd, 0x8d, 0x3c);  // orange
    case PodState::kTerminating:
      return QColor(0xb3, 0x5a, 0x3c);  // brick
    case PodState::kCrashed:
      return QColor(0xb2, 0x18, 0x2b);  // crimson
    case PodState::kGone:
      return QColor(0xd9, 0xd9, 0xd9);  // grey
  }
  return Qt::black;
}

const char* state_label(PodState s) {
  return s == PodState::kTerminating ? "preStop/terminating" : to_string(s);
}

QColor marker_color(MarkerKind k) {
  switch (k) {
    case MarkerKind::kTerm:
    case MarkerKind::kInt:
    case MarkerKind::kQuit:
      return QColor(0xd9, 0x48, 0x01);
    case MarkerKind::kTstp:
    case MarkerKind::kCont:
      return QColor(0x31, 0x82, 0xbd);
    case MarkerKind::kKill:
      return QColor(0x00, 0x00, 0x00);
    case MarkerKind::kOom:
      return QColor(0xa5, 0x00, 0x26);
  }
  return Qt::black;
}

int outcome_rank(Outcome o) {
  switch (o) {
    case Outcome::kCompleted:
      return 0;
    case Outcome::kDuplicate:
      return 1;
    case Outcome::kCancelled:
      return 2;
    case Outcome::kFailed:
      return 3;
    case Outcome::kInterrupted:
      return 4;
    case Outcome::kAbandoned:
      return 5;
    case Outcome::kKilled:
      return 6;
  }
  return 0;
}

}  // namespace drainsim::viewer
