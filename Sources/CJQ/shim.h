// libjq (Debian's libjq-dev, jq 1.6) for Swift: jq's own headers, and its messages gathered
// into a value the caller owns (a C callback, so that no Swift closure has to cross as one).
#ifndef CJQ_SHIM_H
#define CJQ_SHIM_H

#include <jv.h>
#include <jq.h>

/* Appends each message jq reports (a compile error, a `stderr` or `input` complaint) to the
   array at `data`: the caller reads and frees it. */
static void cjq_collect_message(void *data, jv message) {
    jv *messages = (jv *)data;
    *messages = jv_array_append(*messages, message);
}

/* `debug` writes nothing: the program may own the terminal. */
static void cjq_ignore_debug(void *data, jv message) {
    (void)data;
    jv_free(message);
}

/* Sends `jq`'s messages into `*messages` (which must outlive `jq`), and its `debug` nowhere. */
static inline void cjq_collect_messages(jq_state *jq, jv *messages) {
    jq_set_error_cb(jq, cjq_collect_message, messages);
    jq_set_debug_cb(jq, cjq_ignore_debug, NULL);
}

#endif
