-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (SET/DROP DEFAULT: "these forms set or remove the default value for a column ... the default value only applies in subsequent INSERT or UPDATE commands; it does not cause rows already in the table to change")
-- verified: orders relfilenode unchanged, no scan; AccessExclusiveLock brief
-- given: CREATE TABLE orders (id bigint PRIMARY KEY, public_id uuid, placed_at timestamptz);
ALTER TABLE orders ALTER COLUMN public_id SET DEFAULT gen_random_uuid(), ALTER COLUMN placed_at SET DEFAULT clock_timestamp();
