#include "src/tensor_data.hpp"
