-- expect: unsafe unique-without-index
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD table_constraint UNIQUE [ NULLS [ NOT ] DISTINCT ] builds its unique index inside the ALTER TABLE under ACCESS EXCLUSIVE); NULLS NOT DISTINCT is new in PG 15
-- verified: PG15: AccessExclusiveLock on api_keys, a new index api_keys_owner_label_key built (seq_scan +1)
-- pg-version: 15
-- given: CREATE TABLE api_keys (id bigint PRIMARY KEY, owner_id bigint NOT NULL, label text, secret_hash bytea NOT NULL);
ALTER TABLE api_keys ADD CONSTRAINT api_keys_owner_label_key UNIQUE NULLS NOT DISTINCT (owner_id, label);
