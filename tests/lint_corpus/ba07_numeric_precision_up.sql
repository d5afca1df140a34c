-- expect: safe
-- doc: https://www.postgresql.org/docs/15/sql-altertable.html (Notes); src/backend/utils/adt/numeric.c numeric_support: same scale and a precision not smaller makes the typmod coercion a no-op
-- verified: invoices relfilenode unchanged, no scan; AccessExclusiveLock only
-- given: CREATE TABLE invoices (id bigint PRIMARY KEY, total numeric(10,2) NOT NULL, tax numeric(10,2));
ALTER TABLE invoices ALTER COLUMN total TYPE numeric(14,2);
