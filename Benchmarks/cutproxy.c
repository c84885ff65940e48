// A TCP proxy that cuts the first N connections after LIMIT response bytes and appends the bytes it
// relayed to the client, per connection, to a stats file. For Benchmarks/transfer-bench.sh.
// usage: cutproxy LISTEN_PORT UPSTREAM_PORT LIMIT CUT_CONNECTIONS STATS_FILE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int connect_upstream(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) { close(fd); return -1; }
    return fd;
}

static void relay(int client, int upstream, long long limit, const char *stats) {
    static char buffer[1 << 20];
    struct pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
    long long down = 0;
    for (;;) {
        if (poll(fds, 2, -1) < 0) break;
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(client, buffer, sizeof buffer);
            if (n <= 0) break;
            for (ssize_t off = 0; off < n;) { ssize_t w = write(upstream, buffer + off, n - off); if (w <= 0) goto done; off += w; }
        }
        if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            size_t want = sizeof buffer;
            if (limit >= 0 && (long long)want > limit - down) want = (size_t)(limit - down);
            ssize_t n = read(upstream, buffer, want);
            if (n <= 0) break;
            for (ssize_t off = 0; off < n;) { ssize_t w = write(client, buffer + off, n - off); if (w <= 0) goto done; off += w; }
            down += n;
            if (limit >= 0 && down >= limit) break;
        }
    }
done:
    shutdown(client, SHUT_RDWR); shutdown(upstream, SHUT_RDWR);
    close(client); close(upstream);
    int fd = open(stats, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) { char line[64]; int len = snprintf(line, sizeof line, "%lld\n", down); write(fd, line, len); close(fd); }
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: cutproxy LISTEN UPSTREAM LIMIT CUTS STATS\n"); return 2; }
    int listen_port = atoi(argv[1]), upstream_port = atoi(argv[2]), cuts = atoi(argv[4]);
    long long limit = atoll(argv[3]);
    signal(SIGCHLD, SIG_IGN);
    int server = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(server, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET; a.sin_port = htons(listen_port); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(server, (struct sockaddr *)&a, sizeof a) != 0 || listen(server, 64) != 0) { perror("listen"); return 1; }
    for (int number = 1;; number++) {
        int client = accept(server, NULL, NULL);
        if (client < 0) continue;
        if (fork() == 0) {
            close(server);
            int upstream = connect_upstream(upstream_port);
            if (upstream < 0) { close(client); _exit(1); }
            relay(client, upstream, number <= cuts ? limit : -1, argv[5]);
            _exit(0);
        }
        close(client);
    }
}
