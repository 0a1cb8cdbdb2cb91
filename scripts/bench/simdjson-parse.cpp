// Peer for `make bench`: simdjson's DOM parser on one file. Prints one line per run:
// the seconds that parse took (the file is read once, outside the timing).
#include <simdjson.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: simdjson-parse FILE RUNS\n");
        return 2;
    }
    simdjson::padded_string json;
    if (simdjson::padded_string::load(argv[1]).get(json)) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    int runs = std::atoi(argv[2]);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(json).get(doc)) return 1;  // warm-up, allocates the parser's buffers
    for (int i = 0; i < runs; i++) {
        auto t0 = std::chrono::steady_clock::now();
        if (parser.parse(json).get(doc)) return 1;
        auto t1 = std::chrono::steady_clock::now();
        std::printf("%.9f\n", std::chrono::duration<double>(t1 - t0).count());
    }
    return 0;
}
