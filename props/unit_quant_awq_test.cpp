// spec/quant awq rules: exact findings and consumer messages.
#include "props/catch.hpp"
#include "props/quant_support.hpp"
