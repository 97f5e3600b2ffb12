/* The fleet store's tie to PostgreSQL (pq.c): libpq loaded when a store is first used, and the
 * connection helpers every store command uses (connect, run a command, say the server's error).
 * Each PQ... call of fleet/ goes through the table pq, resolved by fleet_load_libpq. */
#ifndef DRAIN_FLEET_PQ_H
#define DRAIN_FLEET_PQ_H

#include <libpq-fe.h>
#include <stddef.h>

/* libpq is loaded when a store is used (the first push, fleet or --push), not linked: linked, its
 * ~32 libraries (libssl, krb5, ldap...) load at every drain start (peak RSS 9.35 -> 15.07 MiB on a
 * plain stream). libpq-fe.h gives the types; each function fleet/ calls is resolved into pq (its
 * field NAME_), its type checked against libpq-fe.h's declaration (_Generic does not evaluate, so
 * nothing links). */
#define PQ_FNS(X)                                                                                \
    X(PGconn *, PQconnectdb, (const char *))                                                     \
    X(ConnStatusType, PQstatus, (const PGconn *))                                                \
    X(char *, PQerrorMessage, (const PGconn *))                                                  \
    X(void, PQfinish, (PGconn *))                                                                \
    X(PGresult *, PQexec, (PGconn *, const char *))                                              \
    X(PGresult *, PQexecParams,                                                                  \
      (PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *,   \
       int))                                                                                     \
    X(ExecStatusType, PQresultStatus, (const PGresult *))                                        \
    X(char *, PQresultErrorMessage, (const PGresult *))                                          \
    X(char *, PQresultErrorField, (const PGresult *, int))                                       \
    X(int, PQntuples, (const PGresult *))                                                        \
    X(char *, PQgetvalue, (const PGresult *, int, int))                                          \
    X(int, PQgetlength, (const PGresult *, int, int))                                            \
    X(void, PQclear, (PGresult *))                                                               \
    X(PGresult *, PQprepare, (PGconn *, const char *, const char *, int, const Oid *))          \
    X(PGresult *, PQexecPrepared,                                                                \
      (PGconn *, const char *, int, const char *const *, const int *, const int *, int))         \
    X(int, PQputCopyData, (PGconn *, const char *, int))                                         \
    X(int, PQputCopyEnd, (PGconn *, const char *))                                               \
    X(PGresult *, PQgetResult, (PGconn *))
#define PQ_FIELD(ret, name, args) ret(*name##_) args;
struct fleet_pq {
    PQ_FNS(PQ_FIELD)
};
extern struct fleet_pq pq;
#define PQ_CHECK(ret, name, args)                                                                \
    _Static_assert(_Generic(&name, ret(*) args: 1, default: 0), #name " as in libpq-fe.h");
PQ_FNS(PQ_CHECK)

/* From here on each PQ call goes through pq (a macro does not expand inside itself). */
#define PQconnectdb pq.PQconnectdb_
#define PQstatus pq.PQstatus_
#define PQerrorMessage pq.PQerrorMessage_
#define PQexec pq.PQexec_
#define PQexecParams pq.PQexecParams_
#define PQresultStatus pq.PQresultStatus_
#define PQresultErrorMessage pq.PQresultErrorMessage_
#define PQresultErrorField pq.PQresultErrorField_
#define PQntuples pq.PQntuples_
#define PQgetvalue pq.PQgetvalue_
#define PQgetlength pq.PQgetlength_
#define PQclear pq.PQclear_
#define PQprepare pq.PQprepare_
#define PQexecPrepared pq.PQexecPrepared_
#define PQputCopyData pq.PQputCopyData_
#define PQputCopyEnd pq.PQputCopyEnd_
#define PQgetResult pq.PQgetResult_
/* libpq's PQfinish(NULL) does nothing; the callers rely on it. */
#define PQfinish(c) ((c) ? pq.PQfinish_(c) : (void)0)

/* The advisory lock under which the schema is made or migrated, a month's partitions made and
 * old ones pruned. */
#define FLEET_LOCK_SQL "SELECT pg_advisory_xact_lock(7235871)"

/* A connection (libpq loaded first): NULL with why in err ("cannot connect to the database:
 * ..."). */
PGconn *db_open(const char *conninfo, char *err, size_t errlen);
/* The server's error on r (its message, then its SQLSTATE; class 53, insufficient resources,
 * named: 53100 a full disk, docs/FLEET.md) or the connection's, after "what: " in err, on one
 * line; r cleared. Returns -1. */
int db_err(PGconn *c, PGresult *r, const char *what, char *err, size_t errlen);
/* Runs a command (or a query whose rows are not read): 0, or -1 with db_err's message. */
int db_cmd(PGconn *c, const char *sql, const char *what, char *err, size_t errlen);
/* The head drain push and drain fleet share: --help, or --db CONNINFO and at least one more word.
 * Returns -1 to go on, else the exit status (0 after --help; 2 after a usage error). */
int db_head(int argc, char **argv, const char *usage);

/* Loads libpq (libpq.so.5, or MSAMP_DRAIN_LIBPQ) once, when a store is first used; without it,
 * a clear error and exit 1. drain --push calls it before draining, push and fleet on connecting. */
void fleet_load_libpq(void);

#endif
