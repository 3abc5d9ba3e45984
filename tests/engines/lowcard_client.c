/* A small engine of hsim's protocol in C (docs/protocol.md): plays like the built-in
 * lowcard (passes its three highest cards by rank, ties to the higher suit; plays its
 * lowest legal card by rank, ties to the lower suit; names its longest suit as trump).
 * It reads only the fields it needs, with no JSON library: enough for a test. */
#include <stdio.h>
#include <string.h>

static const char *RANKS = "23456789TJQKA";
static const char *SUITS = "CDSH";
static char line[1 << 17];

/* Read the card names of the JSON list after "key": into cards (rank*4+suit order kept
 * as read); return how many. */
static int list_of(const char *key, int cards[][2]) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":[", key);
    const char *p = strstr(line, pattern);
    int n = 0;
    if (!p) return 0;
    p += strlen(pattern);
    while (*p && *p != ']') {
        if (*p == '"') {
            const char *r = strchr(RANKS, p[1]), *s = strchr(SUITS, p[2]);
            if (r && s && p[3] == '"') {
                cards[n][0] = (int)(r - RANKS);
                cards[n][1] = (int)(s - SUITS);
                n++;
            }
            p += 4;
        } else {
            p++;
        }
    }
    return n;
}

static int before(const int a[2], const int b[2]) { /* a ranks lower than b */
    return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]);
}

int main(void) {
    int cards[64][2];
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"hello\"")) {
            printf("{\"protocol\":1,\"name\":\"c-lowcard\",\"pipeline\":true,"
                   "\"fields\":[\"hand\",\"legal\"]}\n");
        } else if (strstr(line, "\"type\":\"play\"")) {
            int n = list_of("legal", cards), best = 0;
            for (int i = 1; i < n; i++)
                if (before(cards[i], cards[best])) best = i;
            printf("{\"card\":\"%c%c\"}\n", RANKS[cards[best][0]], SUITS[cards[best][1]]);
        } else if (strstr(line, "\"type\":\"pass\"")) {
            int n = list_of("hand", cards), used[64] = {0};
            printf("{\"cards\":[");
            for (int k = 0; k < 3; k++) {
                int best = -1;
                for (int i = 0; i < n; i++)
                    if (!used[i] && (best < 0 || before(cards[best], cards[i]))) best = i;
                used[best] = 1;
                printf("%s\"%c%c\"", k ? "," : "", RANKS[cards[best][0]], SUITS[cards[best][1]]);
            }
            printf("]}\n");
        } else if (strstr(line, "\"type\":\"trump\"")) {
            int n = list_of("hand", cards), count[4] = {0}, ranks[4] = {0}, best = 0;
            for (int i = 0; i < n; i++) {
                count[cards[i][1]]++;
                ranks[cards[i][1]] += cards[i][0];
            }
            for (int s = 1; s < 4; s++)
                if (count[s] * 1000 + ranks[s] * 4 + s > count[best] * 1000 + ranks[best] * 4 + best)
                    best = s;
            printf("{\"trump\":\"%c\"}\n", SUITS[best]);
        } else {
            printf("{\"moon\":\"default\"}\n");
        }
        fflush(stdout);
    }
    return 0;
}
