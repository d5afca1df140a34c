-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint_using_index: "If PRIMARY KEY is specified, and the index's columns are not already marked NOT NULL, then this command will attempt to do ALTER COLUMN SET NOT NULL against each such column. That requires a full table scan")
-- verified: PG15: the concurrent index build scanned once; the ALTER TABLE ... PRIMARY KEY USING INDEX scanned legacy_import once more under AccessExclusiveLock (seq_scan +1)
-- given: CREATE TABLE legacy_import (external_id bigint, payload jsonb);
CREATE UNIQUE INDEX CONCURRENTLY legacy_import_pkey_idx ON legacy_import (external_id);
ALTER TABLE legacy_import ADD CONSTRAINT legacy_import_pkey PRIMARY KEY USING INDEX legacy_import_pkey_idx;
