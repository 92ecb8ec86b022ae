// spec/quant mxfp8 rules: exact findings and consumer messages.
#include "props/catch.hpp"
#include "props/quant_support.hpp"
