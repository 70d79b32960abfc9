/*
 * profile-trace.c: the trace of libh5proxy-profile.so (H5PROXY_PROFILE_TRACE=1), as Darshan's
 * DXT keeps one: every recorded call of every module kept as an event (its record, offset,
 * length, start and end; H5Dread and H5Dwrite add the selection, HDF5's metadata calls
 * more members), at most H5PROXY_PROFILE_TRACE_MAX per process, and written after the
 * records (write_records in profile-core.c). Also the growing JSON text that events and
 * the HDF5 modules' infos are built with.
 */
#include "profile.h"

/* Trace events (H5PROXY_PROFILE_TRACE=1). */
struct event {
    struct record *rec;
    int call;
    int flags; /* H5D: 1 collective */
    int64_t offset, length, start, end;
    char *sel; /* H5D: the file selection, a JSON value, or NULL */
    char *extra; /* more JSON members ("attribute":{...}, "extent":[...]), or NULL */
};
static struct event *events;
static long nevents, capevents, dropped_events;

/* event_add keeps a call of record r as an event (traced; else it only frees sel, owned). */
void event_add(struct record *r, int call, int64_t off, int64_t len, int64_t t1, int64_t t2, int flags,
               char *sel) {
    if (!trace_on) {
        free(sel);
        return;
    }
    if (nevents == capevents) {
        if (capevents >= trace_max) {
            dropped_events++;
            free(sel);
            return;
        }
        long cap = capevents ? capevents * 2 : 4096;
        if (cap > trace_max) cap = trace_max;
        struct event *e = realloc(events, (size_t)cap * sizeof *e);
        if (!e) {
            dropped_events++;
            free(sel);
            return;
        }
        events = e, capevents = cap;
    }
    events[nevents++] = (struct event){r, call, flags, off, len, t1, t2, sel, NULL};
}

/* event_add_extra adds an event that carries more JSON members (extra, owned: freed when the
 * event is not kept). */
void event_add_extra(struct record *r, int call, int64_t t1, int64_t t2, char *extra) {
    event_add_with(r, call, -1, 0, t1, t2, 0, NULL, extra);
}

/* event_add_with adds an event as event_add does, carrying more JSON members (extra, owned,
 * may be NULL: freed when the event is not kept). */
void event_add_with(struct record *r, int call, int64_t off, int64_t len, int64_t t1, int64_t t2, int flags,
                    char *sel, char *extra) {
    long before = nevents;
    event_add(r, call, off, len, t1, t2, flags, sel);
    if (nevents > before) events[nevents - 1].extra = extra;
    else free(extra);
}

/* trace_forget drops the parent's events in a forked child (profile-core.c's atfork). */
void trace_forget(void) {
    events = NULL;
    nevents = capevents = dropped_events = 0;
}

/* trace_counts gives the events kept and those past H5PROXY_PROFILE_TRACE_MAX. */
void trace_counts(long *kept, long *dropped) {
    *kept = nevents;
    *dropped = dropped_events;
}

static void write_event(const struct event *e) {
    ws("{\"kind\":\"event\",\"module\":\"");
    ws(module_names[e->rec->module]);
    ws("\",\"call\":\"");
    ws(call_names[e->call]);
    ws("\",");
    wfile(e->rec);
    ws(",\"offset\":");
    wi(e->offset);
    ws(",\"length\":");
    wi(e->length);
    ws(",\"start_ns\":");
    wi(e->start);
    ws(",\"end_ns\":");
    wi(e->end);
    if (e->flags) ws(",\"collective\":true");
    if (e->sel) {
        ws(",\"selection\":");
        ws(e->sel);
    }
    if (e->extra) {
        ws(",");
        ws(e->extra);
    }
    ws("}\n");
}

/* trace_write writes the kept events, one line each, into the record file being written. */
void trace_write(void) {
    for (long i = 0; i < nevents; i++) write_event(&events[i]);
}

/* ---- JSON text -------------------------------------------------------------------------------- */

void jb_printf(struct jb *b, const char *fmt, ...) {
    if (b->bad) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->bad = 1;
            return;
        }
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap : 256;
        while (cap <= b->n + (size_t)k) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->bad = 1;
            return;
        }
        b->p = q, b->cap = cap;
    }
}
/* jb_str appends s as a JSON string. */
void jb_str(struct jb *b, const char *s) {
    jb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') jb_printf(b, "\\%c", c);
        else if (c < 0x20) jb_printf(b, "\\u%04x", c);
        else jb_printf(b, "%c", c);
    }
    jb_printf(b, "\"");
}
void jb_hex(struct jb *b, const void *buf, size_t n) {
    jb_printf(b, "\"");
    for (size_t i = 0; i < n; i++) jb_printf(b, "%02x", ((const unsigned char *)buf)[i]);
    jb_printf(b, "\"");
}
/* jb_done returns the text (owned by the caller), or NULL when it could not be built. */
char *jb_done(struct jb *b) {
    if (b->bad) {
        free(b->p);
        return NULL;
    }
    return b->p;
}
