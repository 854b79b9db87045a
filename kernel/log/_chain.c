/* The log's chain check over one block of frames, for whole-log verification
 * at the speed of sha256.
 *
 * This is an accelerator of one path and owns no rule of its own: it walks
 * the whole frames of a block that check (length check, chain value, a tick
 * frame's tick and event count read off its first bytes, ticks in order) and
 * stops at the first frame that needs anything else (a frame cut by the
 * block's end, a length or chain that does not check, a prefix it cannot
 * read). The Python code in kernel/log/ takes over from that frame with
 * the one set of rules for tails and damage, so the two paths cannot give
 * different verdicts; a test holds them to the same summaries.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
/* The low-level SHA256 calls: deprecated in OpenSSL 3 in favour of EVP, whose per-call
 * set-up costs more than hashing a small frame does. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <zlib.h>

#define CHAIN 32
#define MAX_PAYLOAD (1u << 30)

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t be(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = (v << 8) | p[i];
    return v;
}

/* The tick and the event count of a payload [tick, [events]]; 0 if unreadable here. */
static int prefix(const unsigned char *p, Py_ssize_t n, uint64_t *tick, uint64_t *count) {
    Py_ssize_t i;
    if (n < 3 || p[0] != 0x92) return 0;
    unsigned char b = p[1];
    if (b < 0x80) { *tick = b; i = 2; }
    else {
        int size = b == 0xcc ? 1 : b == 0xcd ? 2 : b == 0xce ? 4 : b == 0xcf ? 8 : 0;
        if (!size || n < 2 + size + 1) return 0;
        *tick = be(p + 2, size);
        i = 2 + size;
    }
    unsigned char a = p[i];
    if (a >= 0x90 && a <= 0x9f) *count = a & 0x0f;
    else if (a == 0xdc && n >= i + 3) *count = be(p + i + 1, 2);
    else if (a == 0xdd && n >= i + 5) *count = be(p + i + 1, 4);
    else return 0;
    return 1;
}

/* check(block, prev, salt, last_tick) ->
 *   (consumed, frames, prev, last_tick, first_tick, events, stopped)
 * last_tick and first_tick are -1 for none; stopped is 0 when the block ended
 * inside a frame (or exactly at a boundary), 1 when a frame needs the careful path. */
static PyObject *check(PyObject *self, PyObject *args) {
    Py_buffer block, prevb;
    unsigned long salt;
    long long last_tick;
    if (!PyArg_ParseTuple(args, "y*y*kL", &block, &prevb, &salt, &last_tick)) return NULL;
    if (prevb.len != CHAIN) {
        PyBuffer_Release(&block);
        PyBuffer_Release(&prevb);
        PyErr_SetString(PyExc_ValueError, "a chain value is 32 bytes");
        return NULL;
    }
    const unsigned char *buf = block.buf;
    Py_ssize_t len = block.len, pos = 0;
    unsigned char prev[CHAIN], md[SHA256_DIGEST_LENGTH];
    memcpy(prev, prevb.buf, CHAIN);
    long long first = -1, last = last_tick;
    unsigned long long frames = 0, events = 0;
    int stopped = 0, failed = 0;
    uint32_t cached_n = 0xffffffffu, cached_check = 0;
    SHA256_CTX ctx;

    Py_BEGIN_ALLOW_THREADS
    while (len - pos >= 8) {
        uint32_t n = le32(buf + pos), chk = le32(buf + pos + 4);
        if (n != cached_n) {
            unsigned char nb[4] = {buf[pos], buf[pos + 1], buf[pos + 2], buf[pos + 3]};
            cached_check = (uint32_t)crc32((uLong)salt, nb, 4);
            cached_n = n;
        }
        if (chk != cached_check || n > MAX_PAYLOAD) { stopped = 1; break; }
        Py_ssize_t end = pos + 8 + (Py_ssize_t)n + CHAIN;
        if (end > len) break;
        const unsigned char *payload = buf + pos + 8;
        if (!SHA256_Init(&ctx) || !SHA256_Update(&ctx, prev, CHAIN)
            || !SHA256_Update(&ctx, payload, n) || !SHA256_Final(md, &ctx)) {
            failed = 1;
            break;
        }
        if (memcmp(md, payload + n, CHAIN) != 0) { stopped = 1; break; }
        uint64_t tick, count;
        if (!prefix(payload, n, &tick, &count) || tick > (uint64_t)LLONG_MAX
            || (last >= 0 && (long long)tick <= last)) { stopped = 1; break; }
        if (first < 0) first = (long long)tick;
        last = (long long)tick;
        events += count;
        frames++;
        memcpy(prev, md, CHAIN);
        pos = end;
    }
    Py_END_ALLOW_THREADS

    PyBuffer_Release(&block);
    PyBuffer_Release(&prevb);
    if (failed) {
        PyErr_SetString(PyExc_RuntimeError, "OpenSSL could not compute a sha256");
        return NULL;
    }
    return Py_BuildValue("nKy#LLKi", pos, frames, (const char *)prev, (Py_ssize_t)CHAIN,
                         last, first, events, stopped);
}

static PyMethodDef methods[] = {
    {"check", check, METH_VARARGS, "Check the whole frames of one block; see the module source."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_chain", NULL, -1, methods};

PyMODINIT_FUNC PyInit__chain(void) { return PyModule_Create(&module); }
