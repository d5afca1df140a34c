-- expect: unsafe add-column-rewrites
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN ... GENERATED AS IDENTITY: every existing row gets its own sequence value, table rewritten)
-- verified: PG15+16: legacy_imports and its index got new relfilenodes
-- given: CREATE TABLE legacy_imports (source text NOT NULL, payload jsonb, imported_at timestamptz);
-- given: CREATE INDEX legacy_imports_source_idx ON legacy_imports (source);
-- The table never had a key; give it one.
ALTER TABLE legacy_imports ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY;
