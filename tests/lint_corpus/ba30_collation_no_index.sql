-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes: "if the collation for a column has been changed, an index rebuild is required" -- only indexes are affected); with the same type ATColumnChangeRequiresRewrite sees a bare Var and no index exists on the column
-- verified: customers relfilenode unchanged, no scan, no index touched
-- given: CREATE TABLE customers (id bigint PRIMARY KEY, last_name text, notes text);
ALTER TABLE customers ALTER COLUMN last_name TYPE text COLLATE "C";
