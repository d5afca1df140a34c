-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN; Notes: adding a constraint requires checking existing rows); tablecmds.c ATExecAddColumn: for a domain type with constraints the NULL default is wrapped in a CoerceToDomain and evaluated for every row (DomainHasConstraints forces AT_REWRITE_DEFAULT_VAL), so the whole table is rewritten under ACCESS EXCLUSIVE although every value is NULL
-- verified: PG15: relfilenode of order_items and of its pkey index changed (rewrite), no error (NULL passes the CHECK)
-- given: CREATE DOMAIN positive_qty AS integer CHECK (VALUE > 0);
-- given: CREATE TABLE order_items (id bigint PRIMARY KEY, sku text NOT NULL);
ALTER TABLE order_items ADD COLUMN returned_qty positive_qty;
