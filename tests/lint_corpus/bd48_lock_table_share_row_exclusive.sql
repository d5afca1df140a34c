-- expect: unsafe lock-table
-- doc: https://www.postgresql.org/docs/current/sql-lock.html (the lock is held until the transaction ends); explicit-locking.html Table 13.2 (SHARE ROW EXCLUSIVE conflicts with ROW EXCLUSIVE: all writes wait)
-- verified: PG15: the LOCK succeeds and ShareRowExclusiveLock on seats is held until COMMIT, across the UPDATE
-- given: CREATE TABLE seats (id bigserial PRIMARY KEY, event_id bigint NOT NULL, label text NOT NULL, holder_id bigint);
-- given: CREATE TABLE seat_labels_fix (id bigint PRIMARY KEY, new_label text NOT NULL);
BEGIN;
LOCK TABLE ONLY seats IN SHARE ROW EXCLUSIVE MODE;
UPDATE seats s SET label = f.new_label FROM seat_labels_fix f WHERE f.id = s.id;
COMMIT;
