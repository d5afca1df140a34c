-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint; Notes: "Adding a CHECK or NOT NULL constraint requires scanning the table"); ACCESS EXCLUSIVE during the scan
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan rose on billing.Subscriptions; locks held (whole file in one test transaction): Subscriptions AccessExclusiveLock
-- given: CREATE SCHEMA billing;
-- given: CREATE TABLE billing."Subscriptions" (id bigint PRIMARY KEY, "seatCount" int NOT NULL);
ALTER TABLE billing."Subscriptions" ADD CONSTRAINT "Subscriptions_seatCount_positive" CHECK ("seatCount" > 0);
