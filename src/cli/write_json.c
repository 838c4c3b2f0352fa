#include "sink.h"
int cli_json_begin(cli_sink *s) { (void)s; return 1; }
void cli_json_row(cli_sink *s, const sv_row_view *row) { (void)s; (void)row; }
void cli_json_end(cli_sink *s) { (void)s; }
