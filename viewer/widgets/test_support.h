// What the viewer's Qt tests share: loading files that must load. Tests only.
#pragma once

#include <QStringList>
#include <QtGlobal>

#include "widgets/render.h"

namespace drainsim::viewer::testing {

// `files` read into one Loaded; a file that does not load ends the test program with its
// message (the files are the tests' own reference data).
inline Loaded load(const QStringList& files) {
  Loaded loaded;
  for (const QString& f : files) {
    Document d = load_document(f.toStdString());
    if (!d.ok()) qFatal("%s", d.error.c_str());
    loaded.add(std::move(d));
  }
  return loaded;
}

}  // namespace drainsim::viewer::testing
