// mpi_job() where ctrl was built without MPI: a clear error instead of a missing symbol.
#include <ctrl/loop/process_group.hpp>

namespace ctrl::loop {

bool built_with_mpi() { return false; }

std::unique_ptr<ProcessGroup> mpi_job(double /*timeout_s*/) {
  throw UsageError("this ctrl was built without MPI (install OpenMPI and rebuild): it runs in one process only");
}

}  // namespace ctrl::loop
