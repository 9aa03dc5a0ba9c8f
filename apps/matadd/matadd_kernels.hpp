// matadd: c = a + b, element by element (the API's first example).
#pragma once
#include <ctrl/ctrl.hpp>

namespace apps {

// Generic: one logical thread per element; x is the row, y the column.
struct MatAdd {
  static constexpr const char* name = "matadd";
  static constexpr ctrl::Traits traits{ctrl::coalescing::full, ctrl::arith::low, ctrl::sharing::low};
  CTRL_HOST_DEVICE void operator()(ctrl::Thread t, ctrl::Out<float, 2> c, ctrl::In<float, 2> a,
                                   ctrl::In<float, 2> b) const {
    c(t.x, t.y) = a(t.x, t.y) + b(t.x, t.y);
  }
};

}  // namespace apps
