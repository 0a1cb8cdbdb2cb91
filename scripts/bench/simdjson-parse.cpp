// Peer for `make bench`: simdjson's DOM parser on one file. Prints one line per sample:
// seconds per parse over at least 20 ms of back-to-back parses, as the Swift side
// measures (the file is read once, outside the timing).
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
        double elapsed = 0;
        long parses = 0;
        do {
            if (parser.parse(json).get(doc)) return 1;
            parses++;
            elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        } while (elapsed < 0.02);
        std::printf("%.9f\n", elapsed / (double)parses);
    }
    return 0;
}
