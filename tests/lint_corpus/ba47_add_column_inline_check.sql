-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (ADD COLUMN column_constraint; Notes: "Adding a CHECK ... constraint requires scanning the table"); parse_utilcmd.c transformCheckConstraints skips validation only for CREATE TABLE, so the new column's CHECK is verified against every row under ACCESS EXCLUSIVE
-- verified: products relfilenode unchanged but products is seq-scanned (CHECK verified) under AccessExclusiveLock
-- given: CREATE TABLE products (id bigint PRIMARY KEY, title text NOT NULL);
ALTER TABLE products ADD COLUMN weight_grams integer CHECK (weight_grams > 0);
