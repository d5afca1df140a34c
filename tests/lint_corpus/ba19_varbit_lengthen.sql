-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); src/backend/utils/adt/varbit.c varbit_support: a larger max length is a no-op coercion
-- verified: features relfilenode unchanged, no scan
-- given: CREATE TABLE features (id bigint PRIMARY KEY, flags bit varying(8) NOT NULL DEFAULT B'0');
ALTER TABLE features ALTER COLUMN flags TYPE bit varying(64);
