// The module ctrl_catalog_cuda: the GPU-capable catalog (apps/catalog/CMakeLists.txt) behind the
// one name the tool looks up when a platform makes a GPU controller (catalog_for, catalog.cpp).
#include "catalog/catalog.hpp"

extern "C" __attribute__((visibility("default"))) const ctrl::loop::Catalog* ctrl_catalog_cuda() {
  return &apps::catalog();
}
