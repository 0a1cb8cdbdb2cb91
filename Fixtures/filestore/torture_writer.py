#!/usr/bin/env python3
"""A writer for the file store's torture test and benchmark.

Usage: torture_writer.py FILE LOG DONE SEED EDITS CHILDREN

Makes EDITS random edits to a JSON object {"seq": N, "items": {...}} (starting with CHILDREN
items), saving each with a randomly chosen save style: in place, in place in two pieces, by
temporary file and rename, vim's rename-away-and-create, delete and re-create. Now and then it
saves a broken (truncated) document, which the next edit replaces.

Every valid state is appended to LOG as one line, exactly the bytes written, *before* it is
saved, so that a reader can check every revision it saw against the states written. At the
end, DONE receives the CLOCK_MONOTONIC nanoseconds of the last save and the last seq.
"""
import json
import os
import random
import sys
import time

path, log_path, done_path = sys.argv[1], sys.argv[2], sys.argv[3]
seed, edits, children = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
rng = random.Random(seed)
items = {"k%05d" % i: {"score": rng.randint(0, 100), "name": "item %d" % i} for i in range(children)}
next_key = children
STYLES = ["inplace", "inplace", "chunks", "rename", "rename", "vim", "recreate"]


def write_whole(p, text):
    with open(p, "w") as f:
        f.write(text)


def save(text, style):
    if style == "inplace":
        write_whole(path, text)
    elif style == "chunks":
        with open(path, "w") as f:
            mid = len(text) // 2
            f.write(text[:mid])
            f.flush()
            f.write(text[mid:])
    elif style == "rename":
        write_whole(path + ".tmp", text)
        os.rename(path + ".tmp", path)
    elif style == "vim":
        if os.path.exists(path):
            os.rename(path, path + "~")
        write_whole(path, text)
        if os.path.exists(path + "~"):
            os.unlink(path + "~")
    elif style == "recreate":
        if os.path.exists(path):
            os.unlink(path)
        write_whole(path, text)


def mutate():
    global next_key
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        keys = list(items)
        if op < 0.45 and keys:
            items[rng.choice(keys)]["score"] = rng.randint(0, 100)
        elif op < 0.65:
            items["k%05d" % next_key] = {"score": rng.randint(0, 100), "name": "item %d" % next_key}
            next_key += 1
        elif op < 0.85 and len(keys) > 5:
            del items[rng.choice(keys)]
        elif keys:
            items[rng.choice(keys)]["name"] = "renamed %d" % rng.randint(0, 10**6)


last = 0
with open(log_path, "w") as log:
    for seq in range(1, edits + 1):
        mutate()
        text = json.dumps({"seq": seq, "items": items}, separators=(",", ":"))
        log.write(text + "\n")
        log.flush()
        if seq < edits and rng.random() < 0.02:
            write_whole(path, text[: rng.randint(1, len(text) - 1)])
        save(text, rng.choice(STYLES))
        last = time.monotonic_ns()
        if rng.random() < 0.05 and seq < edits:
            time.sleep(rng.random() * 0.003)

with open(done_path + ".tmp", "w") as f:
    f.write("%d %d\n" % (last, edits))
os.rename(done_path + ".tmp", done_path)
