-- expect: unsafe column-type-change
-- doc: https://www.postgresql.org/docs/current/ddl-inherit.html and sql-altertable.html (SET DATA TYPE recurses to children; numeric(12,2) -> numeric(12,4) changes the scale: rewrite)
-- verified: PG15+16: payments, payments_card and payments_sepa all got new relfilenodes
-- given: CREATE TABLE payments (id bigint PRIMARY KEY, amount numeric(12,2));
-- given: CREATE TABLE payments_card (card_last4 char(4)) INHERITS (payments);
-- given: CREATE TABLE payments_sepa (iban text) INHERITS (payments);
ALTER TABLE payments ALTER COLUMN amount TYPE numeric(12,4);
