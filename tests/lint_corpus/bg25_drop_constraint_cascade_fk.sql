-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (DROP CONSTRAINT ... CASCADE drops the dependent foreign key too; catalog-only, brief ACCESS EXCLUSIVE); DROP CONSTRAINT is not a column or table drop
-- verified: PG15 and PG16 servers (same result): no relfilenode changed (no rewrite); dropped/renamed countries_code_key; seq_scan unchanged on every table (no scan); locks held (whole file in one test transaction): addresses AccessExclusiveLock, countries AccessExclusiveLock
-- given: CREATE TABLE countries (code char(2) NOT NULL, name text);
-- given: ALTER TABLE countries ADD CONSTRAINT countries_code_key UNIQUE (code);
-- given: CREATE TABLE addresses (id bigint PRIMARY KEY, country_code char(2) REFERENCES countries (code));
ALTER TABLE countries DROP CONSTRAINT IF EXISTS countries_code_key CASCADE;
ALTER TABLE addresses DROP CONSTRAINT IF EXISTS addresses_country_code_fkey;
