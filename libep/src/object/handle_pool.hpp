// Type-stable storage for the objects behind handles, and what a handle is.
//
// A program may pass a handle after freeing it, or one it never got (a bug,
// erroneous in MPI); libep must then answer with an error class rather than
// read freed memory or act on whatever object took the old one's place. So
// the objects behind ep::Comm and ep::Request live in slots of a pool:
//
//  - Slots come in chunks that are never given back to the heap while the
//    process runs; a freed object is destroyed in place and its slot goes to
//    a free list for the next object of its type. Reading a stale handle's
//    slot therefore always reads memory of the pool, never freed memory.
//  - A handle is not an address: it is (generation << 32 | slot index). The
//    index is checked against the number of slots made so far before any slot
//    is read, so a garbage value reads nothing outside the pool either.
//  - Each slot has a generation, odd while its handle is live. Freeing the
//    handle makes it even (retire), and the next occupant of the slot makes
//    it odd again, one higher: a stale handle never names the new occupant
//    until the 32-bit generation wraps, after 2^31 reuses of one slot.
//
// Decoding a handle costs two loads of the pool's bookkeeping (the slot count
// and the chunk's address, shared and read-mostly) and one of the slot's
// generation, next to the object itself. Detected: null, freed (retired),
// reused, and out-of-range handles. Not detected: a garbage value whose low
// 32 bits name an existing slot and whose high 32 bits happen to equal that
// slot's current odd generation (the odds are those of guessing a 32-bit
// number). Handles of different types are different C++ types, so mixing
// them up does not compile.
//
// At most kMaxChunks * kChunkSlots objects of a type exist at once; beyond,
// allocation throws std::bad_alloc, as the heap would when exhausted.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>

#include "base/spinlock.hpp"

namespace ep::detail {

// A handle is 64 bits wide: 32 of slot index and 32 of generation.
static_assert(sizeof(void*) == 8 && sizeof(std::uintptr_t) == 8,
              "libep's handles encode a slot index and a generation in a 64-bit pointer");

template <class T>
class HandlePool {
 public:
  static constexpr std::uint32_t kChunkBits = 8;
  static constexpr std::uint32_t kChunkSlots = 1u << kChunkBits;
  static constexpr std::uint32_t kMaxChunks = 1u << 16;

  /// The storage of a free slot for a new T; its generation becomes odd (live).
  /// Out of line, as release: the message path reuses its own cache of slots
  /// (Endpoint::spare_requests) and should not carry the lock's code.
  [[gnu::noinline]] static void* allocate() {
    Slot* s = nullptr;
    {
      std::lock_guard lock(lock_);
      if (!free_) grow();
      s = free_;
      free_ = s->next_free;
    }
    bump(s);
    return s->storage;
  }

  /// Takes back the storage of a destroyed T (allocate's), retiring its handle.
  [[gnu::noinline]] static void release(void* storage) {
    Slot* s = slot_of(storage);
    retire_slot(s);
    std::lock_guard lock(lock_);
    s->next_free = free_;
    free_ = s;
  }

  /// The handle of `object` is no longer valid (the user freed it), though
  /// the object itself may live on until its operations end.
  static void retire(const T* object) { retire_slot(slot_of(object)); }

  /// A retired slot takes a new object in place (a cache of its owner's):
  /// the new object's handle differs from the old one's.
  static void revive(const T* object) { bump(slot_of(object)); }

  /// The handle a retired object will have once revived: for an object
  /// whose handle must be given out before the object is ready for use.
  static std::uintptr_t revived_handle(const T* object) {
    const Slot* s = slot_of(object);
    return std::uintptr_t{(s->generation.load(std::memory_order_relaxed) | 1u)} << 32 | s->index;
  }

  /// The handle of a live object of the pool.
  static std::uintptr_t handle(const T* object) {
    const Slot* s = slot_of(object);
    return std::uintptr_t{s->generation.load(std::memory_order_relaxed)} << 32 | s->index;
  }

  /// The object of a live handle, or nullptr for anything else.
  static T* live(std::uintptr_t handle) {
    const auto index = static_cast<std::uint32_t>(handle);
    const auto generation = static_cast<std::uint32_t>(handle >> 32);
    if (index >= slots_.load(std::memory_order_acquire)) return nullptr;
    Slot* s = at(index);
    if ((generation & 1u) == 0 || s->generation.load(std::memory_order_relaxed) != generation) {
      return nullptr;
    }
    return object_in(s);
  }

  /// The object of a handle that live() accepted, without checking again.
  static T* object(std::uintptr_t handle) {
    return object_in(at(static_cast<std::uint32_t>(handle)));
  }

 private:
  struct alignas(64) Slot {
    std::atomic<std::uint32_t> generation{0};  // odd: the handle is live
    std::uint32_t index = 0;
    Slot* next_free = nullptr;  // on the free list
    alignas(T) std::byte storage[sizeof(T)];
  };

  static Slot* slot_of(const void* storage) {
    auto* bytes = static_cast<std::byte*>(const_cast<void*>(storage));
    return reinterpret_cast<Slot*>(bytes - offsetof(Slot, storage));
  }
  static T* object_in(Slot* s) { return std::launder(reinterpret_cast<T*>(s->storage)); }
  static Slot* at(std::uint32_t index) {
    return chunks_[index >> kChunkBits] + (index & (kChunkSlots - 1));
  }
  // Even to odd. Only the slot's owner writes its generation (others only
  // read it), so a plain store does: no locked read-modify-write on the
  // message path.
  static void bump(Slot* s) {
    s->generation.store(s->generation.load(std::memory_order_relaxed) + 1,
                        std::memory_order_relaxed);
  }
  static void retire_slot(Slot* s) {
    // Odd to the next even number; even stays.
    const std::uint32_t g = s->generation.load(std::memory_order_relaxed);
    s->generation.store((g + 1) & ~1u, std::memory_order_relaxed);
  }

  // Under lock_: a new chunk, its slots on the free list. Published to
  // live() by slots_ (release), after the chunk's address. An entry of
  // chunks_ is written once, before any handle into it exists, and read only
  // after slots_ said it exists (or through a handle made after it): plain
  // reads, which the compiler may share between the decodes of one call.
  static void grow() {
    const std::uint32_t first = slots_.load(std::memory_order_relaxed);
    const std::uint32_t chunk = first >> kChunkBits;
    if (chunk >= kMaxChunks) throw std::bad_alloc();
    Slot* slots = new Slot[kChunkSlots];  // never deleted: type-stable
    for (std::uint32_t i = kChunkSlots; i-- > 0;) {
      slots[i].index = first + i;
      slots[i].next_free = free_;
      free_ = &slots[i];
    }
    chunks_[chunk] = slots;
    slots_.store(first + kChunkSlots, std::memory_order_release);
  }

  static inline SpinLock lock_;
  static inline Slot* free_ = nullptr;
  static inline std::atomic<std::uint32_t> slots_{0};
  static inline Slot* chunks_[kMaxChunks]{};
};

}  // namespace ep::detail
