// A singly linked FIFO of objects that carry their own `next` pointer.
//
// Matching queues need exactly three operations: append at the tail, find and
// unlink the first element satisfying a predicate, and unlink a known element.
// None of them may allocate, because they run under the endpoint's lock.
#pragma once

namespace ep::detail {

template <class T>
class IntrusiveFifo {
 public:
  bool empty() const { return head_ == nullptr; }

  void push_back(T* item) {
    item->next = nullptr;
    if (tail_) {
      tail_->next = item;
    } else {
      head_ = item;
    }
    tail_ = item;
  }

  // Unlinks and returns the first element for which pred(*element) holds.
  template <class Pred>
  T* take_first(Pred&& pred) {
    T* prev = nullptr;
    for (T* cur = head_; cur; prev = cur, cur = cur->next) {
      if (pred(*cur)) {
        unlink(prev, cur);
        return cur;
      }
    }
    return nullptr;
  }

  // Returns the first element for which pred(*element) holds, leaving it queued.
  template <class Pred>
  T* find_first(Pred&& pred) const {
    for (T* cur = head_; cur; cur = cur->next) {
      if (pred(*cur)) return cur;
    }
    return nullptr;
  }

  // Unlinks `item` if it is queued; returns whether it was.
  bool remove(T* item) {
    return take_first([item](const T& x) { return &x == item; }) != nullptr;
  }

  T* pop_front() {
    T* first = head_;
    if (first) unlink(nullptr, first);
    return first;
  }

 private:
  void unlink(T* prev, T* cur) {
    if (prev) {
      prev->next = cur->next;
    } else {
      head_ = cur->next;
    }
    if (tail_ == cur) tail_ = prev;
    cur->next = nullptr;
  }

  T* head_ = nullptr;
  T* tail_ = nullptr;
};

}  // namespace ep::detail
