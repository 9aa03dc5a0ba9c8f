// Private: storage of the sweep that is not zero-filled (every element is written before it is
// read), reused from level to level where it can be, and on transparent huge pages where the
// kernel allows them. The level arrays and the parent pointers of a large instance are hundreds
// of MiB: allocating them anew at every level, filling them with zeros and faulting them in 4 KiB
// pages cost about a fifth of the sweep.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ctrl::partition::detail {

// Blocks from this size on are mapped from the kernel and unmapped when freed, so that what the
// sweep frees goes back at once: from malloc's heap, blocks of a few MiB freed among others that
// stay (checkpoints among summaries) were held as holes, 100 MiB past the sweep's count at
// p = 1000.
constexpr std::size_t mapped_from = std::size_t{1} << 20;
constexpr std::size_t huge_page = std::size_t{2} << 20;

// Whether a block of `bytes` is mapped on huge pages: where asked, from one huge page on.
inline bool on_huge_pages(std::size_t bytes, bool huge) { return huge && bytes >= huge_page; }

// The bytes mapped for a block of `bytes`: whole huge pages, or whole pages.
inline std::size_t mapped_bytes(std::size_t bytes, bool huge) {
  const std::size_t unit = on_huge_pages(bytes, huge) ? huge_page : 4096;
  return (bytes + unit - 1) / unit * unit;
}

// `bytes` of uninitialised memory, given back by big_free with the same arguments. Mapped blocks
// with `huge` are aligned to and advised as huge pages (the last one partly wasted, so only for a
// few big blocks).
inline void* big_alloc(std::size_t bytes, bool huge = true) {
#if defined(__linux__)
  if (bytes >= mapped_from) {
    huge = on_huge_pages(bytes, huge);
    const std::size_t size = mapped_bytes(bytes, huge), extra = huge ? huge_page : 0;
    void* m = mmap(nullptr, size + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    auto* base = static_cast<char*>(m);
    char* p = base;
    if (huge) {  // trim to a huge-page boundary
      const std::size_t skew = reinterpret_cast<std::uintptr_t>(base) % huge_page;
      const std::size_t head = skew == 0 ? 0 : huge_page - skew;
      p = base + head;
      if (head > 0) munmap(base, head);
      if (extra > head) munmap(p + size, extra - head);
#if defined(MADV_HUGEPAGE)
      madvise(p, size, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    }
    return p;
  }
#else
  (void)huge;
#endif
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

inline void big_free(void* p, std::size_t bytes, bool huge = true) noexcept {
  if (p == nullptr) return;
#if defined(__linux__)
  if (bytes >= mapped_from) {
    munmap(p, mapped_bytes(bytes, huge));
    return;
  }
#else
  (void)huge;
#endif
  std::free(p);
}

template <class T>
struct FreeBlock {
  std::size_t bytes = 0;
  bool huge = true;
  void operator()(T* p) const noexcept { big_free(p, bytes, huge); }
};

// An allocator for std::vector<T> whose resize leaves new elements uninitialised (no zero fill),
// from big_alloc: for big tables that are written in full before they are read.
template <class T>
struct UninitAllocator {
  using value_type = T;
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  T* allocate(std::size_t count) { return static_cast<T*>(big_alloc(count * sizeof(T))); }
  void deallocate(T* p, std::size_t count) noexcept { big_free(p, count * sizeof(T)); }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0)
      ::new (static_cast<void*>(p)) U;
    else
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const UninitAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using UninitVector = std::vector<T, UninitAllocator<T>>;

// One growable array (the sweep has a few: two levels and the events).
template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  T* data() noexcept { return data_.get(); }
  const T* data() const noexcept { return data_.get(); }
  T& operator[](std::size_t i) noexcept { return data_.get()[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_.get()[i]; }
  std::size_t capacity() const noexcept { return capacity_; }

  // Room for `count` elements; the contents are lost when it grows, to twice what is asked
  // (levels grow from one to the next; what is not touched costs address space only).
  void reserve_discard(std::size_t count) {
    if (count <= capacity_) return;
    const std::size_t want = count * 2;
    data_.reset();
    data_ =
        std::unique_ptr<T, FreeBlock<T>>(static_cast<T*>(big_alloc(want * sizeof(T))), FreeBlock<T>{want * sizeof(T)});
    capacity_ = want;
  }

 private:
  std::unique_ptr<T, FreeBlock<T>> data_;
  std::size_t capacity_ = 0;
};

// Arrays that are kept to the end (every level's parent pointers), carved one after the other
// from blocks that double from 1 MiB to 64 MiB: small instances allocate little, and a thousand
// levels waste no more than a few huge pages. rewind() carves the same blocks again (a segment of
// levels after another, when the sweep keeps its memory within a limit).
template <class T>
class Arena {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  // Room for `count` elements, uninitialised, valid as long as the arena (or until rewind).
  T* take(std::size_t count) {
    if (count > room_) next_block(count);
    T* p = next_;
    next_ += count;
    room_ -= count;
    used_ += count;
    touched_ = std::max(touched_, used_);
    return p;
  }

  // Every array taken so far is given up; their blocks are carved again. Where they did not fit
  // the first block, one block half as large again as all they took replaces the blocks, so that
  // growing segments do not leave blocks unused.
  void rewind() {
    if (!blocks_.empty() && used_ > blocks_.front().size) {
      blocks_.clear();
      add_block(used_ + used_ / 2);
    }
    at_ = npos;
    next_ = nullptr;
    room_ = 0;
    used_ = 0;
  }

  std::size_t used_bytes() const noexcept { return used_ * sizeof(T); }  // arrays taken
  // The most ever taken at once: what the arena holds in memory (its blocks' pages are only
  // touched as they are carved; a block skipped for a larger array is not counted).
  std::size_t bytes() const noexcept { return touched_ * sizeof(T); }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  struct Block {
    std::unique_ptr<T, FreeBlock<T>> data;
    std::size_t size;
  };

  // The next held block with room for `count`, or a new one.
  void next_block(std::size_t count) {
    for (++at_; at_ < blocks_.size(); ++at_) {
      if (blocks_[at_].size < count) continue;  // left unused until the next rewind
      next_ = blocks_[at_].data.get();
      room_ = blocks_[at_].size;
      return;
    }
    add_block(std::max(count, block_ / sizeof(T)));
    at_ = blocks_.size() - 1;
    next_ = blocks_.back().data.get();
    room_ = blocks_.back().size;
    block_ = std::min(2 * block_, std::size_t{64} << 20);
  }

  void add_block(std::size_t size) {
    blocks_.push_back(Block{
        std::unique_ptr<T, FreeBlock<T>>(static_cast<T*>(big_alloc(size * sizeof(T))), FreeBlock<T>{size * sizeof(T)}),
        size});
  }

  std::vector<Block> blocks_;
  std::size_t at_ = npos;  // the block being carved
  T* next_ = nullptr;
  std::size_t room_ = 0;
  std::size_t used_ = 0, touched_ = 0;        // elements
  std::size_t block_ = std::size_t{1} << 20;  // bytes of the next block
};

}  // namespace ctrl::partition::detail
