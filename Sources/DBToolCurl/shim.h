#ifndef DBTOOL_CURL_SHIM_H
#define DBTOOL_CURL_SHIM_H

#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift can not
// call: one typed wrapper per kind of argument.

static inline CURLcode dbtool_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode dbtool_curl_set_offset(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode dbtool_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode dbtool_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode dbtool_curl_set_list(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}

typedef size_t (*dbtool_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);

static inline CURLcode dbtool_curl_set_callback(CURL *curl, CURLoption option, dbtool_curl_data_callback callback) {
    return curl_easy_setopt(curl, option, callback);
}

typedef int (*dbtool_curl_progress_callback)(void *context, curl_off_t downloadTotal, curl_off_t downloaded, curl_off_t uploadTotal, curl_off_t uploaded);

static inline CURLcode dbtool_curl_set_progress_callback(CURL *curl, dbtool_curl_progress_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode dbtool_curl_response_code(CURL *curl, long *code) {
    return curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, code);
}

#endif
