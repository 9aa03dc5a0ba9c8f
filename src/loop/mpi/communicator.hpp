// The MPI job that a distributed platform runs on: MPI's set-up and tear-down, and the few
// collective operations the platform needs, each with a deadline (docs/distributed.md, "Failure").
//
// Every collective waits with MPI_Test and a deadline instead of blocking: a rank that hangs or
// whose node is cut off makes every other rank stop with a message naming the step, not wait
// forever. A rank that dies is noticed by the launcher (mpirun), which terminates the others;
// they then say so on their way out (a SIGTERM handler) instead of vanishing silently.
// MPI is called from the thread that made the Communicator only (MPI_THREAD_FUNNELED).
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace ctrl::loop::mpi {

class Communicator {
 public:
  // Initialises MPI (MPI_Init_thread); `timeout_s`: the longest wait for the other ranks at any
  // step, MPI_Init and MPI_Finalize included. Installs the SIGTERM handler.
  explicit Communicator(double timeout_s);
  ~Communicator();  // MPI_Finalize
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return host_; }
  // "rank 1 of 2 (node2)", for messages.
  std::string who() const;
  std::string who(int rank, const std::string& host) const;

  // `what` names the step for the timeout message ("starting a round").
  void barrier(const char* what);
  std::vector<std::string> allgather(const std::string& mine, const char* what);
  void broadcast(std::string& text, const char* what);  // rank 0's text to every rank
  bool any(bool local, const char* what);
  // Rank 0 receives every rank's `rows` rows of `row_bytes` bytes (in rank order, one buffer);
  // the others get an empty vector.
  std::vector<std::byte> gather_rows(std::span<const std::byte> mine, std::size_t rows, std::size_t row_bytes,
                                     std::vector<std::size_t>& rows_per_rank, const char* what);

  // "rank 1 of 2 (node1): what failed; ..." for the ranks whose entry of `errors` is not empty
  // (`hosts`: each rank's, or empty when not known); empty when every entry is.
  std::string describe_errors(const std::vector<std::string>& errors, const std::vector<std::string>& hosts) const;

  // Prints "ctrl: <who>: <message>" and ends the whole job (MPI_Abort) with `code`.
  [[noreturn]] void abort(int code, const std::string& message) const;

 private:
  void wait(void* request, const char* what);
  void prepare_term_message() const;  // what the SIGTERM handler writes, naming this rank
  int rank_ = 0, size_ = 1;
  std::string host_;
  double timeout_s_;
};

}  // namespace ctrl::loop::mpi
