// Reading tensor bytes for the --data rules (spec/quant/data_rules.hpp).
#pragma once
