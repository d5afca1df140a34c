-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: "Adding a CHECK or NOT NULL constraint requires scanning the table to verify that existing rows meet the constraint"); parse_utilcmd.c transformCheckConstraints skips validation only for CREATE TABLE, so a CHECK in ADD COLUMN is verified against every row (all NULL here, but still a full scan under ACCESS EXCLUSIVE)
-- verified: PG15: seq_scan of inventory +1, relfilenode unchanged, AccessExclusiveLock on inventory
-- given: CREATE TABLE inventory (id bigint PRIMARY KEY, sku text NOT NULL, on_hand integer NOT NULL DEFAULT 0);
ALTER TABLE inventory ADD COLUMN reserved integer CHECK (reserved >= 0);
