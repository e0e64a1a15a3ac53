// The intra-process transport: moves a message between two endpoints of one
// process, copying its bytes once. It never matches: the engine (engine.cpp)
// pairs a send with a posted receive under the receiver's lock, then calls
// here to move the data, or to hold a send that no receive has matched yet.
//
// A held send is eager, packed into a buffer of its own so that the send
// completes at once (small messages), or a rendezvous descriptor of the
// sender's buffer, which the receiver copies when it matches and then
// completes the send. Either way the bytes are copied once, except for small
// unexpected messages, which are copied twice but small.
#pragma once

#include "object/request.hpp"

namespace ep::detail {

/// Copies the send `s` of endpoint rank `source` into the receive `r` it
/// matched, sets r's status and completes both. `inline_room`: what the
/// posted queue said of r (PostedReceive): a message that fits is written
/// into r without reading r first.
void intra_copy(RequestImpl* s, RequestImpl* r, int source, int inline_room);

/// The unexpected-queue entry of the send `s`, which no posted receive
/// matched, as the receiver will see it: from endpoint rank `source`, with
/// s's tag. `to_self`: the sender sends to itself. An eager send completes
/// here; a rendezvous one stays posted until a receiver copies it. Runs under
/// the receiver's lock, so that no receive can be posted in between.
Incoming* intra_hold(RequestImpl* s, int source, bool to_self);

/// Unpacks `bytes` bytes of packed data at `data` into the receive `r` that
/// matched them (the engine has set r's status) and completes r: a message
/// another transport holds in its own memory (node/rings.hpp).
void intra_receive_bytes(const std::byte* data, std::int64_t bytes, RequestImpl* r);

/// Moves a held message into the receive `r` it matched (the engine has set
/// r's status), completes r and a rendezvous sender, and frees `message`.
void intra_receive(Incoming* message, RequestImpl* r);

}  // namespace ep::detail
