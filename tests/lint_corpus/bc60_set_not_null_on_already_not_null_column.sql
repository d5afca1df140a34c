-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL); tablecmds.c ATExecSetNotNull: if the column is already attnotnull nothing is done (no scan); the earlier migration declared "sku" NOT NULL, the ORM restates it together with a new default
-- verified: PG15: relfilenode and seq_scan of catalog_items unchanged
-- given: CREATE TABLE catalog_items (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, sku varchar(64) NOT NULL, price_cents integer NOT NULL);
ALTER TABLE catalog_items ALTER COLUMN sku SET NOT NULL;
ALTER TABLE catalog_items ALTER COLUMN price_cents SET DEFAULT 0, ALTER COLUMN price_cents SET NOT NULL;
