-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD table_constraint_using_index: the SET NOT NULL scan happens only for index columns "not already marked NOT NULL"; the column was made NOT NULL by the earlier migration)
-- verified: PG15: ALTER TABLE ... PRIMARY KEY USING INDEX did not change seq_scan of legacy_import (only the CONCURRENTLY build scanned); relfilenode unchanged
-- given: CREATE TABLE legacy_import (external_id bigint NOT NULL, payload jsonb);
CREATE UNIQUE INDEX CONCURRENTLY legacy_import_pkey_idx ON legacy_import (external_id);
ALTER TABLE legacy_import ADD CONSTRAINT legacy_import_pkey PRIMARY KEY USING INDEX legacy_import_pkey_idx;
