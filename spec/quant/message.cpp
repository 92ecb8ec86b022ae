#include "spec/quant/message.hpp"

namespace safespec::quant {

std::string fill(std::string_view text, std::initializer_list<Arg> args) {
  std::string out;
  out.reserve(text.size() + 32);
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '{') {
      const std::size_t close = text.find('}', i + 1);
      if (close != std::string_view::npos) {
        const std::string_view name = text.substr(i + 1, close - i - 1);
        const Arg* found = nullptr;
        for (const Arg& a : args)
          if (a.name == name) found = &a;
        if (found) {
          out += found->value;
          i = close + 1;
          continue;
        }
      }
    }
    out += text[i++];
  }
  return out;
}

Verdict verdict(const MessageTemplate& t, CheckOrder order, std::initializer_list<Arg> args) {
  return Verdict{t.consumer, t.effect, std::string(t.error), fill(t.text, args), order};
}

}  // namespace safespec::quant
