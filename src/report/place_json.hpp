// A place as JSON, beside its readable "where" text: the same keys for every
// kind, null or [] where a kind has no such part, so a program reads the
// tensor's name without parsing "tensor '...'" back.
#pragma once

#include <string>

#include "spec/place.hpp"

namespace safespec {

// Whether the place's `name` is part of it (JSON null otherwise): the kinds
// that name something, and a checkpoint only once it is known which one.
bool place_has_name(const Place& p);

// {"kind":"tensor_field","name":"a","field":"x","path":["k",2],"byte":null}
std::string place_json(const Place& p);

}  // namespace safespec
