-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); fixed-length bit(n) -> bit(m) goes through bit(bit,int,bool), which has no support function (varbit_support is attached to varbit() only) and pads every value: rewrite
-- verified: features and features_pkey relfilenodes changed (rewrite)
-- given: CREATE TABLE features (id bigint PRIMARY KEY, mask bit(8) NOT NULL);
ALTER TABLE features ALTER COLUMN mask TYPE bit(16);
