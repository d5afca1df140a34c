-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-delete.html; the table is created and seeded in this same migration, nothing else uses it yet
-- verified: PG15: all statements succeed; DELETE only affects currencies, created in this file
-- given: CREATE TABLE countries (code char(2) PRIMARY KEY, name text NOT NULL);
CREATE TABLE currencies (code char(3) PRIMARY KEY, name text NOT NULL, minor_units smallint NOT NULL);
INSERT INTO currencies VALUES ('EUR', 'Euro', 2), ('USD', 'US Dollar', 2), ('JPY', 'Yen', 0), ('XXX', 'placeholder', 0);
-- reset seed (idempotent re-run)
DELETE FROM currencies;
INSERT INTO currencies VALUES ('EUR', 'Euro', 2), ('USD', 'US Dollar', 2), ('JPY', 'Yen', 0);
