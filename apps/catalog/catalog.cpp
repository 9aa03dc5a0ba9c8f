#include "catalog/catalog.hpp"

namespace apps {

const ctrl::loop::Catalog& catalog() {
  static const ctrl::loop::Catalog all = [] {
    ctrl::loop::Catalog c;
    c.add(dgemm_workload());
    c.add(fft2d_workload());
    c.add(matadd_workload());
    c.add(blackscholes_parameters(), blackscholes_workload);
    c.add(matmul_workload());
    c.add(jacobi_parameters(), jacobi_workload);
    c.add(recurrence_parameters(), recurrence_workload);
    return c;
  }();
  return all;
}

}  // namespace apps
