-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL; ATExecSetNotNull does nothing when attnotnull is already set); the PRIMARY KEY made tenant_id NOT NULL in the earlier migration
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): memberships AccessExclusiveLock
-- given: CREATE TABLE memberships (tenant_id int, user_id int, role text, PRIMARY KEY (tenant_id, user_id));
-- Hibernate/Flyway hand-written: make sure keys are not null
ALTER TABLE memberships ALTER COLUMN tenant_id SET NOT NULL;
ALTER TABLE memberships ALTER COLUMN user_id SET NOT NULL;
