/* Internal to liblamina: connecting (connection.c). */
#ifndef LAMINA_CONNECTION_H
#define LAMINA_CONNECTION_H

#include "client.h"

/* Says hello on conn->fd and waits for the welcome (or the refusal). */
int lm_say_hello(lamina_connection *conn, const char *client_name, char **error);

#endif
