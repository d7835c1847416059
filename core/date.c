/* core/date.c -- UTC calendar days and ISO-8601 timestamps.
 *
 * Day numbers use Howard Hinnant's days_from_civil algorithm (proleptic
 * Gregorian, exact for every year we accept: 1..9999).  Parsing is strict:
 * every field has a fixed width and a range check, and leap days are real.
 */
#include "core/gpi.h"

#include <stdio.h>
#include <string.h>

int32_t gpi_days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (unsigned)((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1);
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (int32_t)(era * 146097 + (int)doe - 719468);
}

void gpi_civil_from_days(int32_t z0, int *y, int *m, int *d)
{
    int z = z0 + 719468;
    const int era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int yy = (int)yoe + era * 400;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned dd = doy - (153 * mp + 2) / 5 + 1;
    const unsigned mm = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (mm <= 2);
    *m = (int)mm;
    *d = (int)dd;
}

int gpi_month_days(int y, int m)
{
    static const int len[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12) return 0;
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return len[m - 1];
}

int gpi_date_valid(int y, int m, int d)
{
    return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 &&
           d <= gpi_month_days(y, m);
}

/* Reads exactly n decimal digits. */
static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

/* Parses the YYYY-MM-DD prefix of s. */
static const char *date_prefix(const char *s, int *y, int *m, int *d)
{
    if (!digits(s, 4, y) || s[4] != '-' || !digits(s + 5, 2, m) || s[7] != '-' ||
        !digits(s + 8, 2, d))
        return "not a date YYYY-MM-DD";
    if (!gpi_date_valid(*y, *m, *d)) return "no such calendar date";
    return NULL;
}

const char *gpi_date_parse(const char *s, int32_t *day)
{
    int y, m, d;
    if (!s || strlen(s) != 10) return "not a date YYYY-MM-DD";
    const char *why = date_prefix(s, &y, &m, &d);
    if (why) return why;
    *day = gpi_days_from_civil(y, m, d);
    return NULL;
}

const char *gpi_month_parse(const char *s, int *y, int *m)
{
    if (!s || strlen(s) != 7 || !digits(s, 4, y) || s[4] != '-' || !digits(s + 5, 2, m))
        return "not a month YYYY-MM";
    if (*y < 1 || *m < 1 || *m > 12) return "no such month";
    return NULL;
}

const char *gpi_time_parse(const char *s, int64_t *unix_s)
{
    int y, mo, d, hh = 0, mi = 0, ss = 0;
    if (!s) return "not a date or timestamp";
    size_t n = strlen(s);
    if (n < 10) return "not a date or ISO-8601 timestamp";
    const char *why = date_prefix(s, &y, &mo, &d);
    if (why) return strcmp(why, "no such calendar date") == 0 ? why
                                                              : "not a date or ISO-8601 timestamp";
    const char *p = s + 10;
    int64_t off = 0;
    if (*p) {
        if (*p != 'T' && *p != 't' && *p != ' ') return "not a date or ISO-8601 timestamp";
        p++;
        if (!digits(p, 2, &hh) || p[2] != ':' || !digits(p + 3, 2, &mi))
            return "not a date or ISO-8601 timestamp";
        p += 5;
        if (*p == ':') {
            if (!digits(p + 1, 2, &ss)) return "not a date or ISO-8601 timestamp";
            p += 3;
            if (*p == '.' || *p == ',') {
                p++;
                if (*p < '0' || *p > '9') return "not a date or ISO-8601 timestamp";
                while (*p >= '0' && *p <= '9') p++;
            }
        }
        if (hh > 23 || mi > 59 || ss > 60) return "time of day out of range";
        if (*p == 'Z' || *p == 'z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int oh, om;
            int sign = *p == '-' ? -1 : 1;
            if (!digits(p + 1, 2, &oh)) return "bad UTC offset (want Z or ±hh:mm)";
            if (p[3] == ':') {
                if (!digits(p + 4, 2, &om)) return "bad UTC offset (want Z or ±hh:mm)";
                p += 6;
            } else if (digits(p + 3, 2, &om)) {
                p += 5;
            } else {
                return "bad UTC offset (want Z or ±hh:mm)";
            }
            if (oh > 23 || om > 59) return "bad UTC offset (want Z or ±hh:mm)";
            off = sign * (int64_t)(oh * 3600 + om * 60);
        }
        if (*p) return "not a date or ISO-8601 timestamp";
    }
    int64_t t = (int64_t)gpi_days_from_civil(y, mo, d) * 86400 + hh * 3600 + mi * 60 +
                (ss > 59 ? 59 : ss);
    /* an offset may carry a time past 9999-12-31 or before 0001-01-01 UTC,
     * where no date of the tool can name it */
    if (t - off < (int64_t)gpi_days_from_civil(1, 1, 1) * 86400 ||
        t - off >= (int64_t)(gpi_days_from_civil(9999, 12, 31) + 1) * 86400)
        return "outside the years 0001-9999 in UTC";
    *unix_s = t - off;
    return NULL;
}

int32_t gpi_day_of_time(int64_t t)
{
    int64_t q = t / 86400;
    if (t % 86400 < 0) q--;
    return (int32_t)q;
}

void gpi_date_format(int32_t day, char out[11])
{
    int y, m, d;
    gpi_civil_from_days(day, &y, &m, &d);
    char buf[48];
    snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
    memcpy(out, buf, 10);
    out[10] = '\0';
}

static void put2(char *o, int v)
{
    o[0] = (char)('0' + v / 10);
    o[1] = (char)('0' + v % 10);
}

void gpi_time_format(int64_t t, char out[21])
{
    int32_t day = gpi_day_of_time(t);
    int sec = (int)(t - (int64_t)day * 86400);
    int y, m, d;
    gpi_civil_from_days(day, &y, &m, &d);
    if (y < 0 || y > 9999) { /* printf's text, cut to 20 characters */
        char buf[80];
        snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, sec / 3600,
                 sec / 60 % 60, sec % 60);
        memcpy(out, buf, 20);
        out[20] = '\0';
        return;
    }
    /* by hand: observations.csv writes one per line */
    put2(out, y / 100);
    put2(out + 2, y % 100);
    out[4] = '-';
    put2(out + 5, m);
    out[7] = '-';
    put2(out + 8, d);
    out[10] = 'T';
    put2(out + 11, sec / 3600);
    out[13] = ':';
    put2(out + 14, sec / 60 % 60);
    out[16] = ':';
    put2(out + 17, sec % 60);
    out[19] = 'Z';
    out[20] = '\0';
}

int gpi_iso_weekday(int32_t day)
{
    /* 1970-01-01 was a Thursday (4). */
    int w = (int)(((int64_t)day % 7 + 7 + 3) % 7);
    return w + 1;
}
