/* Definitions of the libnats functions the Fleet module calls, forwarding to the library opened
   with dlopen by rtprecv_nats_load(). The signatures are nats.h's own. They are hidden from
   the executable's dynamic symbols, as COpenSSL's are, so that no library binds its own calls to them. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <errno.h>
#include <inttypes.h>
#pragma GCC visibility push(hidden)
#include "CNATS.h"
#pragma GCC visibility pop

#define FUNCTIONS(X) \
    X(nats_GetLastError) X(natsStatus_GetText) \
    X(natsOptions_Create) X(natsOptions_Destroy) X(natsOptions_SetServers) X(natsOptions_SetUserInfo) \
    X(natsOptions_SetUserCredentialsFromFiles) X(natsOptions_LoadCATrustedCertificates) X(natsOptions_SetSecure) \
    X(natsOptions_SetName) X(natsOptions_SetTimeout) X(natsOptions_SetMaxReconnect) X(natsOptions_SetReconnectWait) \
    X(natsOptions_SetRetryOnFailedConnect) \
    X(natsConnection_Connect) X(natsConnection_Status) X(natsConnection_Close) X(natsConnection_Destroy) \
    X(jsOptions_Init) X(natsConnection_JetStream) X(jsCtx_Destroy) \
    X(jsStreamConfig_Init) X(js_AddStream) X(jsStreamInfo_Destroy) X(js_Publish) X(jsPubOptions_Init) X(jsPubAck_Destroy) X(js_GetLastMsg) \
    X(natsMsg_GetData) X(natsMsg_GetDataLength) X(natsMsg_Destroy) \
    X(kvConfig_Init) X(js_CreateKeyValue) X(js_KeyValue) X(kvStore_Destroy) X(kvStore_Get) X(kvStore_Put) X(kvStore_Create) \
    X(kvStore_Update) X(kvStore_Delete) X(kvStore_Keys) X(kvKeysList_Destroy) \
    X(kvEntry_Value) X(kvEntry_ValueLen) X(kvEntry_Revision) X(kvEntry_Destroy) X(kvEntry_Key) X(kvEntry_Operation) \
    X(kvWatchOptions_Init) X(kvStore_WatchAll) X(kvWatcher_Next) X(kvWatcher_Destroy)

#define POINTER(name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    /* The C client 3.x: soname 3.4 in Debian 12; the unversioned name where a newer one is installed. */
    void *library = dlopen("libnats.so.3.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libnats.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define RESOLVE(name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(library, #name)) && !load_error[0]) \
        snprintf(load_error, sizeof load_error, "libnats has no %s", #name);
    FUNCTIONS(RESOLVE)
}

int rtprecv_nats_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (load_error[0]) {
        snprintf(message, size, "%s (install libnats3.4)", load_error);
        return -1;
    }
    return 0;
}

const char *nats_GetLastError(natsStatus *status) { return p_nats_GetLastError(status); }
const char *natsStatus_GetText(natsStatus s) { return p_natsStatus_GetText(s); }
natsStatus natsOptions_Create(natsOptions **o) { return p_natsOptions_Create(o); }
void natsOptions_Destroy(natsOptions *o) { p_natsOptions_Destroy(o); }
natsStatus natsOptions_SetServers(natsOptions *o, const char **s, int n) { return p_natsOptions_SetServers(o, s, n); }
natsStatus natsOptions_SetUserInfo(natsOptions *o, const char *u, const char *p) { return p_natsOptions_SetUserInfo(o, u, p); }
natsStatus natsOptions_SetUserCredentialsFromFiles(natsOptions *o, const char *c, const char *s) {
    return p_natsOptions_SetUserCredentialsFromFiles(o, c, s);
}
natsStatus natsOptions_LoadCATrustedCertificates(natsOptions *o, const char *f) { return p_natsOptions_LoadCATrustedCertificates(o, f); }
natsStatus natsOptions_SetSecure(natsOptions *o, bool s) { return p_natsOptions_SetSecure(o, s); }
natsStatus natsOptions_SetName(natsOptions *o, const char *n) { return p_natsOptions_SetName(o, n); }
natsStatus natsOptions_SetTimeout(natsOptions *o, int64_t t) { return p_natsOptions_SetTimeout(o, t); }
natsStatus natsOptions_SetMaxReconnect(natsOptions *o, int m) { return p_natsOptions_SetMaxReconnect(o, m); }
natsStatus natsOptions_SetReconnectWait(natsOptions *o, int64_t w) { return p_natsOptions_SetReconnectWait(o, w); }
natsStatus natsOptions_SetRetryOnFailedConnect(natsOptions *o, bool r, natsConnectionHandler h, void *c) {
    return p_natsOptions_SetRetryOnFailedConnect(o, r, h, c);
}
natsStatus natsConnection_Connect(natsConnection **nc, natsOptions *o) { return p_natsConnection_Connect(nc, o); }
natsConnStatus natsConnection_Status(natsConnection *nc) { return p_natsConnection_Status(nc); }
void natsConnection_Close(natsConnection *nc) { p_natsConnection_Close(nc); }
void natsConnection_Destroy(natsConnection *nc) { p_natsConnection_Destroy(nc); }
natsStatus jsOptions_Init(jsOptions *o) { return p_jsOptions_Init(o); }
natsStatus natsConnection_JetStream(jsCtx **js, natsConnection *nc, jsOptions *o) { return p_natsConnection_JetStream(js, nc, o); }
void jsCtx_Destroy(jsCtx *js) { p_jsCtx_Destroy(js); }
natsStatus jsStreamConfig_Init(jsStreamConfig *c) { return p_jsStreamConfig_Init(c); }
natsStatus js_AddStream(jsStreamInfo **si, jsCtx *js, jsStreamConfig *c, jsOptions *o, jsErrCode *e) {
    return p_js_AddStream(si, js, c, o, e);
}
void jsStreamInfo_Destroy(jsStreamInfo *si) { p_jsStreamInfo_Destroy(si); }
natsStatus js_Publish(jsPubAck **a, jsCtx *js, const char *s, const void *d, int n, jsPubOptions *o, jsErrCode *e) {
    return p_js_Publish(a, js, s, d, n, o, e);
}
natsStatus jsPubOptions_Init(jsPubOptions *o) { return p_jsPubOptions_Init(o); }
void jsPubAck_Destroy(jsPubAck *a) { p_jsPubAck_Destroy(a); }
natsStatus js_GetLastMsg(natsMsg **m, jsCtx *js, const char *st, const char *su, jsOptions *o, jsErrCode *e) {
    return p_js_GetLastMsg(m, js, st, su, o, e);
}
const char *natsMsg_GetData(const natsMsg *m) { return p_natsMsg_GetData(m); }
int natsMsg_GetDataLength(const natsMsg *m) { return p_natsMsg_GetDataLength(m); }
void natsMsg_Destroy(natsMsg *m) { p_natsMsg_Destroy(m); }
natsStatus kvConfig_Init(kvConfig *c) { return p_kvConfig_Init(c); }
natsStatus js_CreateKeyValue(kvStore **kv, jsCtx *js, kvConfig *c) { return p_js_CreateKeyValue(kv, js, c); }
natsStatus js_KeyValue(kvStore **kv, jsCtx *js, const char *b) { return p_js_KeyValue(kv, js, b); }
void kvStore_Destroy(kvStore *kv) { p_kvStore_Destroy(kv); }
natsStatus kvStore_Get(kvEntry **e, kvStore *kv, const char *k) { return p_kvStore_Get(e, kv, k); }
natsStatus kvStore_Put(uint64_t *r, kvStore *kv, const char *k, const void *d, int n) { return p_kvStore_Put(r, kv, k, d, n); }
natsStatus kvStore_Create(uint64_t *r, kvStore *kv, const char *k, const void *d, int n) { return p_kvStore_Create(r, kv, k, d, n); }
natsStatus kvStore_Update(uint64_t *r, kvStore *kv, const char *k, const void *d, int n, uint64_t last) {
    return p_kvStore_Update(r, kv, k, d, n, last);
}
natsStatus kvStore_Delete(kvStore *kv, const char *k) { return p_kvStore_Delete(kv, k); }
natsStatus kvStore_Keys(kvKeysList *l, kvStore *kv, kvWatchOptions *o) { return p_kvStore_Keys(l, kv, o); }
void kvKeysList_Destroy(kvKeysList *l) { p_kvKeysList_Destroy(l); }
const void *kvEntry_Value(kvEntry *e) { return p_kvEntry_Value(e); }
int kvEntry_ValueLen(kvEntry *e) { return p_kvEntry_ValueLen(e); }
uint64_t kvEntry_Revision(kvEntry *e) { return p_kvEntry_Revision(e); }
void kvEntry_Destroy(kvEntry *e) { p_kvEntry_Destroy(e); }
const char *kvEntry_Key(kvEntry *e) { return p_kvEntry_Key(e); }
kvOperation kvEntry_Operation(kvEntry *e) { return p_kvEntry_Operation(e); }
natsStatus kvWatchOptions_Init(kvWatchOptions *o) { return p_kvWatchOptions_Init(o); }
natsStatus kvStore_WatchAll(kvWatcher **w, kvStore *kv, kvWatchOptions *o) { return p_kvStore_WatchAll(w, kv, o); }
natsStatus kvWatcher_Next(kvEntry **e, kvWatcher *w, int64_t t) { return p_kvWatcher_Next(e, w, t); }
void kvWatcher_Destroy(kvWatcher *w) { p_kvWatcher_Destroy(w); }
