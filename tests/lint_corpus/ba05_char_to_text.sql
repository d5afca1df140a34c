-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); src/include/catalog/pg_cast.dat: bpchar -> text is a function cast (rtrim1 strips trailing blanks), castmethod 'f', not binary coercible
-- verified: countries and countries_pkey relfilenodes changed (rewrite) under AccessExclusiveLock
-- given: CREATE TABLE countries (id int PRIMARY KEY, iso_code char(2) NOT NULL, name text);
ALTER TABLE countries ALTER COLUMN iso_code TYPE text;
