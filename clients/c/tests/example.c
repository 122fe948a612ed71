/* The README's program in C (docs/clients.md): a rounded box, an implicit fade, an explicit
 * animation, an image, a transaction with a completion, a screenshot, then a poll loop that
 * dispatches events. Built by `make check` against the shared library, as an application is.
 * Run it with laminad running: ./build/example [SOCKET] (default: the usual lookup). */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>

#include <lamina.h>

static void on_event(const lamina_event *event, void *user) {
    (void)user;
    if (event->type == LAMINA_EVENT_ANIMATION_STOPPED)
        printf("animation '%s' stopped (finished: %d)\n", event->key, event->finished);
}

static void moved(void *user) { *(int *)user = 1; }

int main(int argc, char **argv) {
    char *error = NULL;
    lamina_connection *conn = lamina_connect(argc > 1 ? argv[1] : NULL, &error);
    if (!conn) {
        fprintf(stderr, "%s\n", error); /* every place it tried, and why */
        lamina_free(error);
        return 1;
    }
    lamina_layer *box = lamina_layer_new(conn);
    lamina_layer_set_bounds(box, 0, 0, 100, 50);
    lamina_layer_set_position(box, 200, 300); /* frame (150, 275, 100, 50) */
    lamina_layer_set_background_color(box, 1, 0x88 / 255.0, 0, 1);
    lamina_layer_set_corner_radius(box, 12);
    lamina_layer_add_sublayer(lamina_connection_root(conn), box);
    if (lamina_connection_sync(conn, &error) != 0) { /* applied by laminad, or its error */
        fprintf(stderr, "laminad refused: %s\n", error);
        lamina_free(error);
        lamina_connection_close(conn);
        return 1;
    }

    lamina_layer_set_opacity(box, 0.5);               /* laminad fades it: 0.25 s, the default curve */
    lamina_connection_commit(conn);
    lamina_animation *move = lamina_animation_basic_new("position.x");
    lamina_animation_set_to_number(move, 400);
    lamina_animation_set_duration(move, 2);
    lamina_layer_add_animation(box, move, "slide");   /* an explicit animation, run by laminad */
    lamina_animation_free(move);                      /* the layer took a copy */

    const unsigned char pixels[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    lamina_image *image = lamina_image_new(conn, 2, 2, pixels, 0, LAMINA_PIXEL_FORMAT_RGBA,
                                           LAMINA_ALPHA_STRAIGHT, &error);   /* shared memory, no copy over the socket */
    if (image)
        lamina_layer_set_contents(box, image);
    else {
        fprintf(stderr, "image: %s\n", error);
        lamina_free(error);
        error = NULL;
    }

    int done = 0;
    lamina_transaction_begin(conn);                   /* CATransaction */
    lamina_transaction_set_duration(conn, 1);
    lamina_transaction_set_timing_function(conn, "easeInEaseOut");
    lamina_transaction_set_completion(conn, moved, &done);
    lamina_layer_set_position(box, 400, 300);         /* animated over 1 s */
    lamina_transaction_commit(conn);                  /* the outermost commit sends it */

    if (lamina_connection_screenshot(conn, "shot.png", &error) != 0) { /* privileged */
        fprintf(stderr, "screenshot: %s\n", error);
        lamina_free(error);
        error = NULL;
    }

    /* A poll loop: laminad's events arrive on the socket; callbacks run from dispatch. */
    lamina_connection_set_event_callback(conn, on_event, NULL);
    struct pollfd p = {.fd = lamina_connection_get_fd(conn), .events = POLLIN};
    while (!done) {
        if (lamina_connection_flush(conn) > 0)
            p.events |= POLLOUT;                      /* more to write: wait until the socket takes it */
        if (poll(&p, 1, 5000) <= 0)
            break;                                    /* (a real program's loop would do its other work here) */
        if ((p.revents & POLLIN) && lamina_connection_dispatch(conn) < 0)
            break;
        if (p.revents & POLLOUT)
            p.events = POLLIN;
    }
    printf(done ? "moved\n" : "stopped waiting: %s\n", lamina_connection_error(conn) ? lamina_connection_error(conn) : "no completion yet");
    lamina_connection_close(conn);                    /* frees the layers and the image too */
    return 0;
}
