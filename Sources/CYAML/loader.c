/* Definitions of the libyaml functions the YAML module calls, forwarding to the library opened
   with dlopen by rtprecv_yaml_load(). The signatures are yaml.h's own. They are hidden from
   the executable's dynamic symbols, as COpenSSL's are, so that no library binds its own calls to them. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#pragma GCC visibility push(hidden)
#include "CYAML.h"
#pragma GCC visibility pop

#define FUNCTIONS(X) \
    X(yaml_parser_initialize) X(yaml_parser_delete) X(yaml_parser_set_input_string) X(yaml_parser_load) \
    X(yaml_document_delete) X(yaml_document_get_node) X(yaml_document_get_root_node)

#define POINTER(name) static __typeof__(name) *p_##name;
FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    /* libyaml 0.2: soname 2. */
    void *library = dlopen("libyaml-0.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define RESOLVE(name) \
    if (!(p_##name = (__typeof__(name) *)dlsym(library, #name)) && !load_error[0]) \
        snprintf(load_error, sizeof load_error, "libyaml has no %s", #name);
    FUNCTIONS(RESOLVE)
}

int rtprecv_yaml_load(char *message, size_t size) {
    pthread_once(&once, load);
    if (load_error[0]) {
        snprintf(message, size, "%s (install libyaml-0-2)", load_error);
        return -1;
    }
    return 0;
}

int yaml_parser_initialize(yaml_parser_t *parser) { return p_yaml_parser_initialize(parser); }
void yaml_parser_delete(yaml_parser_t *parser) { p_yaml_parser_delete(parser); }
void yaml_parser_set_input_string(yaml_parser_t *parser, const unsigned char *input, size_t size) {
    p_yaml_parser_set_input_string(parser, input, size);
}
int yaml_parser_load(yaml_parser_t *parser, yaml_document_t *document) { return p_yaml_parser_load(parser, document); }
void yaml_document_delete(yaml_document_t *document) { p_yaml_document_delete(document); }
yaml_node_t *yaml_document_get_node(yaml_document_t *document, int index) { return p_yaml_document_get_node(document, index); }
yaml_node_t *yaml_document_get_root_node(yaml_document_t *document) { return p_yaml_document_get_root_node(document); }
